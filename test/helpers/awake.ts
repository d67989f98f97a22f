/**
 * Time limits for the tests that count only the time this machine was running. The test host is
 * a virtual machine that its host can stop for minutes; a limit in wall-clock time then fires on
 * resume for whatever was running at the time, however little it had left to do (two CI runs
 * failed so: two test files at once, each killed with nothing said). Here the time is added up
 * a tick at a time, and no tick adds more than a second: a stop of any length, or a test process
 * too busy to tick, costs a limit a second, while a command that really hangs meets it.
 */
const TICK_MS = 500;
const MOST_PER_TICK_MS = 1_000;

/**
 * Calls `onLimit` once `ms` of running time have passed; `clear()` stops it. Like setTimeout it
 * keeps the process alive, unless `keepAlive` is false.
 */
export function awakeTimer(
  ms: number,
  onLimit: () => void,
  { keepAlive = true }: { keepAlive?: boolean } = {},
): { clear(): void } {
  let awake = 0;
  let last = performance.now();
  const tick = setInterval(() => {
    const now = performance.now();
    awake += Math.min(now - last, MOST_PER_TICK_MS);
    last = now;
    if (awake >= ms) {
      clearInterval(tick);
      onLimit();
    }
  }, TICK_MS);
  if (!keepAlive) tick.unref();
  return { clear: () => clearInterval(tick) };
}

/**
 * An AbortSignal that aborts with `reason` after `ms` of running time: AbortSignal.timeout's
 * twin, and like it, it does not keep the process alive.
 */
export function awakeSignal(ms: number, reason: string): AbortSignal {
  const controller = new AbortController();
  awakeTimer(ms, () => controller.abort(new Error(reason)), { keepAlive: false });
  return controller.signal;
}
