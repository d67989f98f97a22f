/**
 * The few file-system moves durability needs, in one place for the store, the server and the
 * CLI: fsync a directory (so a created, renamed or removed name survives power loss), replace a
 * file atomically (write a temporary file beside it, fsync, rename over, fsync the directory: a
 * reader sees the old file or the new one, never a torn one) and create a file that must not
 * exist yet (whole or not at all: temporary file, fsync, link, fsync the directory), at once or
 * as it streams. The async forms serve the store, which must not block the event loop, and the
 * CLI's exports; the sync forms serve the CLI's small files (keys, config), written by sync
 * code. The mode is the caller's (the sync forms require one: keys and config are 0600).
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  createWriteStream,
  fsyncSync,
  linkSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
  type Dirent,
  type WriteStream,
} from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { isAlive } from './process-alive.js';

/**
 * The pid in the name of a temporary file of `path`: `.<name>.<pid>.<hex>.tmp` (uniqueTempPath),
 * or `.<name>.<pid>.tmp`, a name without the random part, which a writer's leftover may have.
 */
function writerOf(path: string, name: string): number | undefined {
  const prefix = `.${basename(path)}.`;
  if (!name.startsWith(prefix)) return undefined;
  const pid = /^(\d+)(?:\.[0-9a-f]{8})?\.tmp$/.exec(name.slice(prefix.length))?.[1];
  return pid === undefined ? undefined : Number(pid);
}

/**
 * Removes the temporary files of `path` whose writer no longer runs: what a writer killed
 * between writing and renaming (kill -9, power loss) leaves. A running writer's file is kept,
 * whoever it is (a reused pid only keeps a leftover longer). Never throws: cards monitor calls it
 * holding a lock not yet handed to what releases it (monitor.ts lockState).
 */
export function removeLeftTempsSync(path: string): void {
  let entries: Dirent[];
  try {
    entries = readdirSync(dirname(path), { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    // A writer makes files only; anything else of that name is someone else's, and kept.
    if (!entry.isFile()) continue;
    const pid = writerOf(path, entry.name);
    if (pid === undefined || pid === process.pid || isAlive(pid)) continue;
    try {
      unlinkSync(join(dirname(path), entry.name));
    } catch {
      // A leftover that cannot be removed (gone already, or a folder the user may not write)
      // costs only its space: it never stops the caller.
    }
  }
}

/**
 * The mode of a folder a server makes for its files (a store's, the log's tiles): others may
 * read it, as they may read the files in it, and never write in it, whatever the umask (under
 * umask 000 a folder made without a mode is 0777, where any user could plant or replace files).
 */
export const FOLDER_MODE = 0o755;

/**
 * A temporary file beside `path`, unique to one call (so racing writers never share one), and
 * named by no one else in advance: in a folder other users may write (a shared /tmp, a CI
 * workspace) a name they can guess could be made first, as their own file (which would then
 * receive a key and become `path`) or as a link to one of ours (which would be overwritten).
 */
const uniqueTempPath = (path: string): string =>
  join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);

/**
 * How every temporary file is opened: made by this call or not at all (O_CREAT | O_EXCL, which
 * never follows a link, POSIX open(2)), so whatever is there under its name is never written.
 */
const NEW_FILE = 'wx';

export async function fsyncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Writes `chunks` (produced lazily, so a large file never sits in memory whole) to a temporary
 * file and renames it over `path`. The temporary file is removed when anything fails.
 */
export async function replaceFile(
  path: string,
  chunks: Iterable<string>,
  mode = 0o644,
): Promise<number> {
  const tmp = uniqueTempPath(path);
  let bytes = 0;
  // Outside the try: a name this call did not make is not this call's to remove.
  const handle = await open(tmp, NEW_FILE, mode);
  try {
    try {
      for (const chunk of chunks) {
        const buffer = Buffer.from(chunk, 'utf8');
        await handle.writeFile(buffer);
        bytes += buffer.byteLength;
      }
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  }
  await fsyncDir(dirname(path));
  return bytes;
}

function fsyncDirSync(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Writes `data` to `fd` whole and fsyncs it. */
function writeAndSync(fd: number, data: string): void {
  writeFileSync(fd, data, 'utf8');
  fsyncSync(fd);
}

/**
 * `replaceFile` for a small text, synchronously: temporary file (created with `mode`), fsync,
 * rename over `path`, fsync the directory. The temporary file is removed when anything fails.
 */
export function replaceFileSync(path: string, data: string, mode: number): void {
  const tmp = uniqueTempPath(path);
  const fd = openSync(tmp, NEW_FILE, mode);
  try {
    try {
      writeAndSync(fd, data);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  fsyncDirSync(dirname(path));
}

/**
 * Creates `path` with `data` and `mode`, refusing (EEXIST) when it exists already, so that the
 * name never holds less than the whole text: the text goes to a temporary file (unique to this
 * call), fsync'ed, then linked to `path` (link fails with EEXIST atomically, like O_EXCL, so two
 * racing writers cannot both win and an existing file is never replaced), the temporary name
 * removed and the directory fsync'ed. A crash at any point leaves `path` absent or whole; a
 * failure removes the temporary file. (Creating `path` itself and writing into it would leave
 * a 0-byte or torn file behind a kill -9 or a full disk.)
 */
export function createFileSync(path: string, data: string, mode: number): void {
  const tmp = uniqueTempPath(path);
  const fd = openSync(tmp, NEW_FILE, mode);
  try {
    try {
      writeAndSync(fd, data);
    } finally {
      closeSync(fd);
    }
    linkSync(tmp, path);
  } finally {
    rmSync(tmp, { force: true });
  }
  fsyncDirSync(dirname(path));
}

/** A file being created as it streams: see `createFileStream`. */
export interface NewFile {
  /** Writes the temporary file. */
  readonly stream: WriteStream;
  /** Once the stream has ended: fsync, link to the name (EEXIST when it exists), fsync the directory. */
  keep(): Promise<void>;
  /** Drops what was written; the name was never made. */
  discard(): void;
}

/**
 * `createFileSync` for a file written as it streams (an export, which may be large): the stream
 * writes a temporary file that becomes `path` only in `keep()`, so an export stopped half-way
 * (a refusal, Ctrl-C, kill -9) never leaves a partial file under the name a person asked for.
 * Both `keep` and `discard` remove the temporary name.
 */
export function createFileStream(path: string, mode = 0o644): NewFile {
  const tmp = uniqueTempPath(path);
  // Opened here, not by the stream, so the temporary name exists from now until keep or discard.
  const stream = createWriteStream('', { fd: openSync(tmp, NEW_FILE, mode) });
  const closed = new Promise<void>((done) => stream.once('close', done));
  return {
    stream,
    async keep() {
      await closed;
      try {
        const handle = await open(tmp, 'r');
        try {
          await handle.sync();
        } finally {
          await handle.close();
        }
        linkSync(tmp, path);
      } finally {
        rmSync(tmp, { force: true });
      }
      await fsyncDir(dirname(path));
    },
    discard() {
      stream.destroy();
      rmSync(tmp, { force: true });
    },
  };
}
