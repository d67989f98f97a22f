/**
 * The server a local store belongs to, as the CLI sees it: the one named in the store's owner
 * file (src/server/owner-file.ts) while it runs. A store's own credentials (its admin token file,
 * tokens minted with its app key) go only to that server; with none running, to no server at
 * all: another server on this machine (a loopback address) is another server, and would learn
 * the store's admin token, or a token it could replay to the store's server.
 */
import { networkInterfaces } from 'node:os';
import { fileHome } from '../server/file-home.js';
import { storeOwner } from '../server/owner-file.js';
import { isLoopbackHost } from '../server/defaults.js';

const hostOf = (url: URL): string => url.hostname.replace(/^\[|\]$/g, '');
const UNSPECIFIED = new Set(['0.0.0.0', '::']);

/** Addresses of this machine's interfaces. */
const localAddresses = (): Set<string> =>
  new Set(
    Object.values(networkInterfaces())
      .flat()
      .map((info) => info?.address ?? ''),
  );

/** Whether `url` reaches the server that holds the store `db` (none does while none runs). */
export function ownsStore(url: string, db: string, cwd: string): boolean {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return false;
  }
  const owner = storeOwner(db, cwd);
  if (owner === undefined) return false;
  const held = new URL(owner.url);
  if (target.port !== held.port) return false;
  const [want, have] = [hostOf(target), hostOf(held)];
  if (want === have) return true;
  if (isLoopbackHost(have)) return isLoopbackHost(want);
  return UNSPECIFIED.has(have) && (isLoopbackHost(want) || localAddresses().has(want));
}

/** The address of the server holding the store `db`, when one runs. */
export const ownerUrl = (db: string, cwd: string): string | undefined => storeOwner(db, cwd)?.url;

/** That address and the file beside the store it was read from. */
export function storeAddress(db: string, cwd: string): { url: string; file: string } | undefined {
  const url = ownerUrl(db, cwd);
  return url === undefined ? undefined : { url, file: fileHome(db, cwd).address };
}
