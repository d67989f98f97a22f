/**
 * A tiny progress bar for long commands, drawn on stderr only when stderr is a terminal, at
 * most ten times a second. Plain characters, no colour (colour lives in output.ts).
 */
import type { OutStream } from './context.js';

interface Progress {
  tick(n?: number): void;
  done(): void;
}

export function createProgress(stream: OutStream, total: number, label: string): Progress {
  if (stream.isTTY !== true || total === 0) return { tick: () => undefined, done: () => undefined };
  let count = 0;
  let last = 0;
  const started = Date.now();
  const draw = (): void => {
    const width = Math.max(10, Math.min(40, (stream.columns ?? 80) - 40));
    const filled = Math.round((count / total) * width);
    const elapsed = (Date.now() - started) / 1000;
    // Rate over the whole run so far, and the time left at that rate.
    const rate = elapsed > 0 ? count / elapsed : 0;
    const eta = rate > 0 ? Math.ceil((total - count) / rate) : undefined;
    stream.write(
      `\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${count}/${total} ${label} ` +
        `${rate.toFixed(rate < 10 ? 1 : 0)}/s ETA ${eta === undefined ? '?' : `${eta}s`} ` +
        `${elapsed.toFixed(1)}s\x1b[K`,
    );
  };
  return {
    tick(n = 1) {
      count += n;
      const now = Date.now();
      if (now - last >= 100 || count === total) {
        last = now;
        draw();
      }
    },
    done() {
      draw();
      stream.write('\n');
    },
  };
}
