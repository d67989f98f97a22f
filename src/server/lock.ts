/**
 * One server per store: a lock file beside it (file-home.ts `lock`) naming its owner. The server
 * takes it before it opens the store and drops it after the store is closed.
 *
 * The owner is its pid on the first line (all an older version wrote, and all it reads: it
 * parses the file as an integer), then, on Linux, `start <ticks>` (field 22 of /proc/PID/stat,
 * the process's start time since boot) and `boot <id>` (/proc/sys/kernel/random/boot_id). A pid
 * is reused once its process is gone, so a live pid alone does not prove the owner lives: the
 * lock holds only when the pid is alive on the same boot with the same start time. A lock
 * without them (an older version's) holds while its pid is alive, as before.
 *
 * The file is written whole under a temporary name and linked into place (link fails with
 * EEXIST atomically, like O_EXCL), so a lock file never exists half-written. A lock whose pid is
 * alive refuses with STORE_LOCKED; a dead pid's lock is taken over (renamed aside first, so two
 * servers racing for a stale lock cannot both win).
 */
import { readFileSync } from 'node:fs';
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

interface Owner {
  readonly pid: number;
  readonly start?: string;
  readonly boot?: string;
}

/** What this system says of a process: undefined where there is no /proc (or no process). */
function readProc(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** Field 22 of /proc/PID/stat, counted after the command name (which may hold spaces). */
function startTime(pid: number): string | undefined {
  const stat = readProc(`/proc/${pid}/stat`);
  const fields = stat?.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields?.[19];
}

const bootId = (): string | undefined => readProc('/proc/sys/kernel/random/boot_id');

function ownerText(): string {
  const start = startTime(process.pid);
  const boot = bootId();
  return `${process.pid}\n${start ? `start ${start}\n` : ''}${boot ? `boot ${boot}\n` : ''}`;
}

async function readOwner(path: string): Promise<Owner | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
  const [first = '', ...rest] = text.split('\n');
  const pid = Number.parseInt(first.trim(), 10);
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  const field = (name: string): string | undefined =>
    rest.find((line) => line.startsWith(`${name} `))?.slice(name.length + 1).trim();
  const start = field('start');
  const boot = field('boot');
  return { pid, ...(start && { start }), ...(boot && { boot }) };
}

/** The owner still runs: its pid is alive, and on the boot and with the start time recorded. */
function holds(owner: Owner): boolean {
  if (owner.pid === process.pid || !isAlive(owner.pid)) return false;
  const boot = owner.boot && bootId();
  if (boot && boot !== owner.boot) return false; // written before a reboot
  const start = owner.start && startTime(owner.pid);
  if (start && start !== owner.start) return false; // the pid now names another process
  return true;
}

const sameOwner = (a: Owner | undefined, b: Owner | undefined): boolean =>
  a?.pid === b?.pid && a?.start === b?.start && a?.boot === b?.boot;

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
  await writeFile(tmp, ownerText(), { mode: 0o644 });
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        await link(tmp, path);
        return { path, release: () => releaseLock(path) };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const owner = await readOwner(path);
      if (owner !== undefined && holds(owner)) throw locked(store, owner.pid);
      // Stale: its owner is gone. Move it aside; only one taker can move a given file.
      const aside = `${tmp}.stale`;
      try {
        await rename(path, aside);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw err;
      }
      const moved = await readOwner(aside);
      if (!sameOwner(moved, owner)) {
        // Another server took the stale lock between our read and our move: give it back.
        await link(aside, path).catch(() => undefined);
        await rm(aside, { force: true });
        throw locked(store, moved?.pid ?? 0);
      }
      await rm(aside, { force: true });
    }
    throw locked(store, (await readOwner(path))?.pid ?? 0);
  } finally {
    await rm(tmp, { force: true });
  }
}

async function releaseLock(path: string): Promise<void> {
  if (!held.delete(path)) return;
  if ((await readOwner(path))?.pid !== process.pid) return;
  // unlink, not rm: rm retries a refused unlink (EPERM) as a folder and reports ENOTDIR.
  await unlink(path).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
  });
}
