/**
 * Listening on a host and port for the servers `cards` starts (`cards serve`, `cards witness
 * serve`): a refusal of the address is a usage error saying what to change (--port, --host),
 * never a raw errno.
 */
import { CardsError } from '../core/errors.js';

/** `listen()`'s outcome, with an address the system refused named as the flags that chose it. */
export async function listenOn<T>(
  host: string,
  port: number,
  listen: () => Promise<T>,
): Promise<T> {
  try {
    return await listen();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const where = `${host}:${port}`;
    if (code === 'EADDRINUSE')
      throw usage(
        `Port ${port} is in use on ${host}; pick another with --port (0 picks a free one).`,
      );
    if (code === 'EACCES') throw usage(`Not allowed to listen on ${where}; try a port above 1023.`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
      throw usage(`Cannot listen on ${where}: no such local address (--host).`);
    throw err;
  }
}

const usage = (message: string): CardsError => new CardsError('USAGE', message);
