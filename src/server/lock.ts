/**
 * One server per store: a lock file beside it (file-home.ts `lock`) holding the owner's pid.
 * The server takes it before it opens the store and drops it after the store is closed.
 *
 * The file is written whole under a temporary name and linked into place (link fails with
 * EEXIST atomically, like O_EXCL), so a lock file never exists half-written. A lock whose pid is
 * alive refuses with STORE_LOCKED; a dead pid's lock is taken over (renamed aside first, so two
 * servers racing for a stale lock cannot both win).
 */
import { link, readFile, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { CardsError } from '../core/errors.js';

export interface StoreLock {
  readonly path: string;
  release(): Promise<void>;
}

/** Locks held by this process, so one process cannot open a store twice either. */
const held = new Set<string>();

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readPid(path: string): Promise<number | undefined> {
  try {
    const pid = Number.parseInt((await readFile(path, 'utf8')).trim(), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

const locked = (store: string, pid: number): CardsError =>
  new CardsError('STORE_LOCKED', `Another server (pid ${pid}) is using the store ${store}.`, {
    hint: 'Stop that server first, or give this one another --db.',
  });

export async function acquireLock(path: string, store: string): Promise<StoreLock> {
  if (held.has(path)) throw locked(store, process.pid);
  held.add(path);
  try {
    return await lockFile(path, store);
  } catch (err) {
    held.delete(path);
    throw err;
  }
}

async function lockFile(path: string, store: string): Promise<StoreLock> {
  const unique = `${process.pid}.${randomBytes(4).toString('hex')}`;
  const tmp = join(dirname(path), `.${basename(path)}.${unique}`);
  await writeFile(tmp, `${process.pid}\n`, { mode: 0o644 });
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        await link(tmp, path);
        return { path, release: () => releaseLock(path) };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const pid = await readPid(path);
      if (pid !== undefined && pid !== process.pid && isAlive(pid)) throw locked(store, pid);
      // Stale: its owner is gone. Move it aside; only one taker can move a given file.
      const aside = `${tmp}.stale`;
      try {
        await rename(path, aside);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw err;
      }
      const movedPid = await readPid(aside);
      if (movedPid !== pid) {
        // Another server took the stale lock between our read and our move: give it back.
        await link(aside, path).catch(() => undefined);
        await rm(aside, { force: true });
        throw locked(store, movedPid ?? 0);
      }
      await rm(aside, { force: true });
    }
    throw locked(store, (await readPid(path)) ?? 0);
  } finally {
    await rm(tmp, { force: true });
  }
}

async function releaseLock(path: string): Promise<void> {
  if (!held.delete(path)) return;
  if ((await readPid(path)) !== process.pid) return;
  // unlink, not rm: rm retries a refused unlink (EPERM) as a folder and reports ENOTDIR.
  await unlink(path).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
  });
}
