import assert from 'node:assert/strict';
import { test } from 'node:test';
import { awakeSignal, awakeTimer } from '../helpers/awake.js';

/** Blocks this process for `ms`, as a host stopping the machine blocks every timer. */
const stall = (ms: number): void => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

test('an awake limit fires after its running time', async () => {
  const started = performance.now();
  const fired = await new Promise<number>((resolve) =>
    awakeTimer(1_200, () => resolve(performance.now() - started)),
  );
  assert.ok(fired >= 1_200 && fired < 5_000, `fired after ${fired} ms`);
});

test('a stall counts a second at most: the limit fires later, not on resume', async () => {
  const started = performance.now();
  const wallClock = AbortSignal.timeout(2_500);
  const awake = awakeSignal(2_500, 'awake limit');
  const fired = new Promise<number>((resolve) =>
    awake.addEventListener('abort', () => resolve(performance.now() - started)),
  );
  // The signal keeps nothing alive (as AbortSignal.timeout): this timer does, meanwhile.
  const alive = setTimeout(() => undefined, 10_000);
  stall(3_000);
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(wallClock.aborted, true, 'a wall-clock limit has fired on resume');
  assert.equal(awake.aborted, false, 'the awake one has counted about a second of the stall');
  const at = await fired;
  assert.ok(at >= 4_000, `fired ${at} ms after the start (3 s stalled + 1.5 s left)`);
  assert.match(String((awake.reason as Error).message), /awake limit/);
  clearTimeout(alive);
});

test('clear() stops it', async () => {
  let fired = false;
  const timer = awakeTimer(300, () => (fired = true));
  timer.clear();
  await new Promise((resolve) => setTimeout(resolve, 1_200));
  assert.equal(fired, false);
});
