/**
 * One server per store: a lock file beside it (paths.ts `lock`) naming its owner. The JSON
 * engine takes it before it opens the store and drops it after the store is closed.
 *
 * The owner is its pid on the first line (all an older version wrote, and all it reads: it
 * parses the file as an integer), then, on Linux, `start <ticks>` (field 22 of /proc/PID/stat,
 * the process's start time since boot) and `boot <id>` (/proc/sys/kernel/random/boot_id). A pid
 * is reused once its process is gone, so a live pid alone does not prove the owner lives: the
 * lock holds only when the pid is alive on the same boot with the same start time. A lock
 * without them (an older version's) holds while its pid is alive.
 *
 * The file is written whole under a temporary name and linked into place (link fails with
 * EEXIST atomically, like O_EXCL), so a lock file never exists half-written. A lock whose owner
 * runs refuses with STORE_LOCKED; a stale one is taken over by one taker at a time (takeoverPath),
 * which removes it only if it is still the lock it judged stale, so two servers racing for a
 * stale lock cannot both win.
 */
import { readFileSync } from 'node:fs';
import { link, readFile, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { CardsError } from '../../core/errors.js';
import { isAlive } from '../../io/process-alive.js';

export interface StoreLock {
  readonly path: string;
  release(): Promise<void>;
}

/** Locks held by this process, so one process cannot open a store twice either. */
const held = new Set<string>();

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

/** The fields of /proc/PID/stat from field 3 on, counted after the command name (which may hold spaces). */
function statFields(pid: number): string[] | undefined {
  const stat = readProc(`/proc/${pid}/stat`);
  return stat?.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** Field 22 of /proc/PID/stat: the process's start time since boot. */
const startTime = (pid: number): string | undefined => statFields(pid)?.[19];

/**
 * Field 3 of /proc/PID/stat is Z or X: the process has exited, and its pid stays taken only until
 * its parent reaps it (a parent that kills it and has not waited yet, or never waits). It holds
 * nothing then.
 */
const exited = (pid: number): boolean => ['Z', 'X'].includes(statFields(pid)?.[0] ?? '');

const bootId = (): string | undefined => readProc('/proc/sys/kernel/random/boot_id');

function ownerText(): string {
  const start = startTime(process.pid);
  const boot = bootId();
  return `${process.pid}\n${start ? `start ${start}\n` : ''}${boot ? `boot ${boot}\n` : ''}`;
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

function parseOwner(text: string): Owner | undefined {
  const [first = '', ...rest] = text.split('\n');
  const pid = Number.parseInt(first.trim(), 10);
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  const field = (name: string): string | undefined =>
    rest
      .find((line) => line.startsWith(`${name} `))
      ?.slice(name.length + 1)
      .trim();
  const start = field('start');
  const boot = field('boot');
  return { pid, ...(start && { start }), ...(boot && { boot }) };
}

async function readOwner(path: string): Promise<Owner | undefined> {
  const text = await readText(path).catch(() => undefined);
  return text === undefined ? undefined : parseOwner(text);
}

/** The owner still runs: its pid is alive (not exited), on the boot and with the start time recorded. */
function holds(owner: Owner): boolean {
  if (owner.pid === process.pid || !isAlive(owner.pid) || exited(owner.pid)) return false;
  const boot = owner.boot && bootId();
  if (boot && boot !== owner.boot) return false; // written before a reboot
  const start = owner.start && startTime(owner.pid);
  if (start && start !== owner.start) return false; // the pid now names another process
  return true;
}

/**
 * The pid of the process that holds the lock at `path` and still runs (by the rule of `holds`:
 * not exited, not a reused pid, not from before a reboot); undefined when none does.
 */
export function lockHolder(path: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  const owner = parseOwner(text);
  if (owner === undefined) return undefined;
  return owner.pid === process.pid || holds(owner) ? owner.pid : undefined;
}

/**
 * What a lock other than a store's says when it is held: `message` of the process holding it
 * (its pid when it runs), ended with the lock's path, and `hint`.
 */
export interface LockRefusal {
  readonly message: (pid: number | undefined) => string;
  readonly hint: string;
}

/** The command of the server a lock keeps to one process: a store's, or a witness's folder. */
export type LockCommand = 'serve' | 'witness serve';

/**
 * Whether the command line of `pid` is `cards <command>`: the `cards` executable (a `cards` or
 * `cards.js` file, run as itself or by node), then the command's words (options may come between,
 * `cards --json serve`). The word `serve` alone proves nothing: `hugo serve` and `npx serve` say
 * it too, and `cards witness serve` holds no store.
 */
function isCardsCommand(pid: number, command: LockCommand): boolean {
  const args = readProc(`/proc/${pid}/cmdline`)?.split('\0') ?? [];
  const bin = args.findIndex((arg) => /^cards(\.[cm]?js)?$/.test(basename(arg)));
  const words = bin < 0 ? [] : args.slice(bin + 1).filter((arg) => !arg.startsWith('-'));
  const serve = words.indexOf('serve');
  const witness = serve > 0 && words[serve - 1] === 'witness';
  return serve >= 0 && witness === (command === 'witness serve');
}

/**
 * The refusal of a held lock. A lock that records its owner's start time and boot is a server's
 * (nothing else writes one); a pid alone (the older format) is only proven a server's when that
 * process's command line is the server's (isCardsCommand): otherwise the message names the file
 * to remove.
 */
function locked(
  store: string,
  owner: Owner | undefined,
  path: string,
  flag: string,
  refusal?: LockRefusal,
  command: LockCommand = 'serve',
): CardsError {
  if (refusal) {
    const pid = owner && (owner.pid === process.pid || holds(owner)) ? owner.pid : undefined;
    return new CardsError('STORE_LOCKED', `${refusal.message(pid)} (its lock: ${path}).`, {
      hint: refusal.hint,
    });
  }
  const pid = owner?.pid ?? 0;
  const proven =
    owner?.pid === process.pid || (owner?.start && owner.boot) || isCardsCommand(pid, command);
  if (proven)
    return new CardsError(
      'STORE_LOCKED',
      `Another server (pid ${pid}) is using the store ${store} (its lock: ${path}).`,
      { hint: `Stop that server first, or give this one another ${flag}.` },
    );
  return new CardsError(
    'STORE_LOCKED',
    `The store ${store} is locked by ${path}, which names pid ${pid}: a running process that cannot be shown to be a cards server (the lock records no start time).`,
    {
      hint: `If pid ${pid} is not a cards server using this store (\`ps -p ${pid} -o args\`), remove the lock and start again: rm '${path.replaceAll("'", "'\\''")}'`,
    },
  );
}

/**
 * Locks `path` for `store`; `flag` is the option that chooses another store (for the hint),
 * `refusal` what a lock of something other than a store says when held, and `command` the
 * server that holds it (`witness serve` for a witness's folder).
 */
export async function acquireLock(
  path: string,
  store: string,
  flag = '--db',
  refusal?: LockRefusal,
  command: LockCommand = 'serve',
): Promise<StoreLock> {
  if (held.has(path)) throw locked(store, { pid: process.pid }, path, flag, refusal, command);
  held.add(path);
  try {
    return await lockFile(path, store, flag, refusal, command);
  } catch (err) {
    held.delete(path);
    throw err;
  }
}

async function lockFile(
  path: string,
  store: string,
  flag: string,
  refusal: LockRefusal | undefined,
  command: LockCommand,
): Promise<StoreLock> {
  const unique = `${process.pid}.${randomBytes(4).toString('hex')}`;
  const tmp = join(dirname(path), `.${basename(path)}.${unique}.tmp`);
  const takeover = takeoverPath(path);
  await writeFile(tmp, ownerText(), { mode: 0o644 });
  const won = (): StoreLock => ({ path, release: () => releaseLock(path) });
  try {
    for (let attempt = 0; attempt < 50; attempt++) {
      if (await linked(tmp, path)) return won();
      const text = await readText(path);
      if (text === undefined) continue; // released meanwhile: try again
      const owner = parseOwner(text);
      if (owner !== undefined && holds(owner))
        throw locked(store, owner, path, flag, refusal, command);
      // Stale. Takers go one at a time (a takeover file, made like the lock), and each removes
      // the stale lock only if it is still the one it judged: never a lock another just made.
      if (!(await enter(tmp, takeover))) {
        await new Promise((resolve) => setTimeout(resolve, 10 + attempt * 5));
        continue;
      }
      try {
        if ((await readText(path)) !== text) continue; // taken meanwhile: judge it again
        await unlink(path).catch(ignoreMissing);
        // A newcomer may link the free name first: then it is the owner, judged next round.
        if (await linked(tmp, path)) return won();
      } finally {
        await unlink(takeover).catch(ignoreMissing);
      }
    }
    throw locked(store, await readOwner(path), path, flag, refusal, command);
  } finally {
    await rm(tmp, { force: true });
  }
}

/** The file stale-lock takers hold one at a time (a companion: store paths never equal it). */
const takeoverPath = (lock: string): string => `${lock}.takeover`;

const ignoreMissing = (err: NodeJS.ErrnoException): void => {
  if (err.code !== 'ENOENT') throw err;
};

/** link(2): false when `to` exists (EEXIST, atomically, like O_EXCL). */
async function linked(from: string, to: string): Promise<boolean> {
  try {
    await link(from, to);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

async function enter(tmp: string, takeover: string): Promise<boolean> {
  if (await linked(tmp, takeover)) return true;
  // A taker holds it for milliseconds; one older than this was left by a taker that died.
  const since = await stat(takeover).then(
    (s) => Date.now() - s.mtimeMs,
    () => 0,
  );
  if (since > 10_000) await unlink(takeover).catch(ignoreMissing);
  return false;
}

async function releaseLock(path: string): Promise<void> {
  if (!held.delete(path)) return;
  if ((await readOwner(path))?.pid !== process.pid) return;
  // unlink, not rm: rm retries a refused unlink (EPERM) as a folder and reports ENOTDIR.
  await unlink(path).catch(ignoreMissing);
}
