/**
 * The process's standard output and error. A command that prints and ends exits quietly when
 * the reader of its output is gone (`cards … | head`: EPIPE). A server outlives its output: a
 * write that fails (a closed pipe, a full disk: ENOSPC) is counted and dropped, and requests go
 * on being answered.
 */
let serving = false;
let dropped = 0;

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
