/**
 * The process's standard output and error. A command that prints and ends exits quietly when
 * the reader of its output is gone (`cards … | head`: EPIPE). A server outlives its output: a
 * write that fails (a closed pipe, a full disk: ENOSPC) is counted and dropped, and requests go
 * on being answered; so is one its reader is too far behind to take (a pipe no one reads), where
 * the writes waiting for it would grow the process without bound.
 */
import type { Writable } from 'node:stream';

let serving = false;
let dropped = 0;

/** The most a server's output may hold waiting for a reader: 1 MiB (thousands of log lines). */
const WAITING_MAX = 1024 * 1024;

/** Installs the error handlers on stdout and stderr (once, at the process's start). */
export function guardStandardStreams(): void {
  for (const stream of [process.stdout, process.stderr])
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (serving) {
        dropped++;
        return;
      }
      if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      // An error that cannot be written anywhere: the command's exit status still tells it.
      if (stream === process.stderr) return;
      throw err;
    });
}

/** From now on, failed writes to stdout and stderr are counted and dropped. */
export function outliveOutput(): void {
  serving = true;
}

/** Writes to stdout or stderr that failed and were dropped while serving. */
export const droppedOutputWrites = (): number => dropped;

/**
 * Writes `text` to a standard stream; while serving, a write the stream's reader is more than
 * WAITING_MAX bytes behind on is dropped and counted instead of held in memory.
 */
export function writeOutput(stream: Writable, text: string): void {
  if (serving && stream.writableLength > WAITING_MAX) {
    dropped++;
    return;
  }
  stream.write(text);
}
