/**
 * Which server holds a JSON store: `cards serve` writes `{url, pid}` beside the store once it
 * listens (`<store>.address`) and removes it when it stops. The store's own credentials (its
 * admin token, tokens minted with its app key) belong to that server alone: the CLI sends them
 * only there (src/cli/local-server.ts), and a client in the store's folder finds the server
 * there instead of assuming the default address.
 */
import { closeSync, fstatSync, openSync, readFileSync, rmSync, statSync } from 'node:fs';
import { replaceFile } from '../io/fs-durable.js';
import { isOwnFile } from '../io/private-file.js';
import { isStoreUrl } from './defaults.js';
import { lockHolder } from '../store/json/lock.js';
import { fileHome } from './file-home.js';

export interface StoreOwner {
  readonly url: string;
  readonly pid: number;
}

/** Writes the owner file of a JSON store target; returns its remover (nothing for a URL). */
export async function announceOwner(target: string, url: string): Promise<() => void> {
  if (isStoreUrl(target)) return () => undefined;
  const file = fileHome(target).address;
  // Best effort: a folder that cannot be written (read-only, full) costs the CLI its way to the
  // server, never the server its start or its stop; without the file, local credentials go to
  // loopback only.
  try {
    await replaceFile(file, [`${JSON.stringify({ url, pid: process.pid })}\n`], 0o644);
  } catch {
    return () => undefined;
  }
  return () => {
    try {
      rmSync(file, { force: true });
    } catch {
      // Left behind, it names a pid that is gone: storeOwner ignores it.
    }
  };
}

/** The server that holds the store `db`, when one is running; undefined otherwise. */
export function storeOwner(db: string, cwd: string): StoreOwner | undefined {
  if (isStoreUrl(db)) return undefined;
  const home = fileHome(db, cwd);
  let owner: Partial<StoreOwner>;
  try {
    const fd = openSync(home.address, 'r');
    try {
      // In a folder others may write, an address file they made or may rewrite could name a
      // server of theirs, which would be sent the store's admin token and app-key tokens. One
      // of the store's owner is its server's, for every user (one with a token of their own).
      const stat = fstatSync(fd);
      if (!isOwnFile(stat) && !isOwnFile(stat, statSync(home.store).uid)) return undefined;
      owner = JSON.parse(readFileSync(fd, 'utf8')) as Partial<StoreOwner>;
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  if (typeof owner.url !== 'string' || typeof owner.pid !== 'number') return undefined;
  // A file left by a server that was killed names nobody: the server that holds the store holds
  // its lock, and the lock's rule knows a process that exited (a zombie its parent has not
  // reaped yet) or a pid now reused from one that runs.
  if (lockHolder(home.lock) !== owner.pid) return undefined;
  return { url: owner.url, pid: owner.pid };
}
