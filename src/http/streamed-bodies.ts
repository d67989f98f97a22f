/**
 * The connections whose request body may take longer than the request timeout: an admin import
 * (`POST /_cards/import`), whose body is a dump of any size read a line at a time as it arrives.
 * Node's `requestTimeout` bounds a whole request, body included, so a dump that takes longer to
 * send and store than `--request-timeout` would be cut half-way with the lines before it stored
 * (and the client told only that its request timed out). Marked by the import's handler once the
 * admin guard let the request in, so no one else's slow body escapes the bound; such a connection
 * is still closed when it sends nothing for the server's idle timeout (stack.ts, setTimeout).
 */
import type { Duplex } from 'node:stream';

const streaming = new WeakSet<Duplex>();

/** The request now on `socket` may take its time while its body keeps arriving. */
export function allowLongBody(socket: Duplex): () => void {
  streaming.add(socket);
  return () => streaming.delete(socket);
}

/** Whether the request on `socket` is one whose body may outlast the request timeout. */
export const mayOutlastRequestTimeout = (socket: Duplex): boolean => streaming.has(socket);
