/**
 * Key swaps in the keystore for `cards rotate`: the new key waits in a pending
 * file until the service accepted its card, then takes the identity's place, and the old key
 * is kept beside it as a dated backup (`<key file>.<time>.bak`) until `--prune`. `listKeys`
 * reads only `*.pem`, so neither pending keys nor backups look like keystore keys.
 */
import { readdirSync, renameSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ensureKeysDir, keyFile, keysDir, writeKeyFile, type PemKey } from './keystore.js';

const pendingFile = (home: string, identity: string): string =>
  `${keyFile(home, identity)}.pending`;

/** Writes the key that is to replace the identity's, not yet in its place. */
export function writePendingKey(home: string, identity: string, key: PemKey): string {
  ensureKeysDir(home);
  const path = pendingFile(home, identity);
  writeKeyFile(path, key, true);
  return path;
}

export function dropPendingKey(home: string, identity: string): void {
  rmSync(pendingFile(home, identity), { force: true });
}

/**
 * Puts the pending key in place; the current key, if any, becomes a dated backup.
 * Returns the backup's path, or null when there was no key.
 */
export function swapInPendingKey(home: string, identity: string, nowMs: number): string | null {
  const current = keyFile(home, identity);
  const stamp = new Date(nowMs).toISOString().replace(/:/g, '-');
  const backup = `${current}.${stamp}.bak`;
  let kept: string | null = backup;
  try {
    renameSync(current, backup);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    kept = null;
  }
  renameSync(pendingFile(home, identity), current);
  return kept;
}

/** The identity's backups, oldest first. */
export function listBackups(home: string, identity: string): string[] {
  const prefix = `${basename(keyFile(home, identity))}.`;
  let names: string[];
  try {
    names = readdirSync(keysDir(home));
  } catch {
    return [];
  }
  return names
    .filter((n) => n.startsWith(prefix) && n.endsWith('.bak'))
    .sort()
    .map((n) => join(keysDir(home), n));
}

/** Removes the identity's backups but `keep`; returns what was removed. */
export function pruneBackups(home: string, identity: string, keep: string | null): string[] {
  const removed = listBackups(home, identity).filter((file) => file !== keep);
  for (const file of removed) rmSync(file, { force: true });
  return removed;
}
