/**
 * One process at a time on a file of the CLI's that two would each write over the other's (a
 * monitor's saved place in a log): a lock file beside it, `<file>.lock`, taken as a store's is
 * (store/json/lock.ts: its owner's pid, start time and boot; a stale one taken over), so a
 * second process refuses (STORE_LOCKED) rather than move the file back to an older point.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { acquireLock, type StoreLock } from '../store/json/lock.js';

export type FileLock = StoreLock;

/**
 * Locks `file` for this process until `release`; `refusal` says what the process holding it
 * (its pid when known) is doing, `hint` what to do about it.
 */
export async function lockFileOf(
  file: string,
  refusal: (pid: number | undefined) => string,
  hint: string,
): Promise<StoreLock> {
  const path = `${file}.lock`;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  return acquireLock(path, file, undefined, { message: refusal, hint });
}
