/**
 * Small private files a program keeps (keys, tokens): read with a warning when other users can
 * read them, refused when kept ones are another user's or others may write them, and made whole
 * or not at all (createFileSync: temporary file, fsync, link, fsync of
 * the folder), mode 0600, never replacing one that exists. Synchronous: they are read once, at
 * start-up or by a command before any work.
 */
import { closeSync, fstatSync, openSync, readFileSync, type Stats } from 'node:fs';
import { CardsError } from '../core/errors.js';
import { createFileSync } from './fs-durable.js';

export interface PrivateText {
  readonly text: string;
  /** Set when the file can be read by others than its owner. */
  readonly warning?: string;
}

/** The file's text; undefined when it does not exist. A folder: USAGE. */
export function readPrivateFile(path: string): PrivateText | undefined {
  return readWithStat(path)?.found;
}

/** The file's text and what fstat(2) says of that same file (no second lookup of its name). */
function readWithStat(path: string): { found: PrivateText; stat: Stats } | undefined {
  let text: string;
  let stat: Stats;
  try {
    const fd = openSync(path, 'r');
    try {
      stat = fstatSync(fd);
      if (stat.isDirectory()) throw new CardsError('USAGE', `${path} is a folder, not a file.`);
      text = readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    if (code === 'EISDIR') throw new CardsError('USAGE', `${path} is a folder, not a file.`);
    throw err;
  }
  if ((stat.mode & 0o077) === 0) return { found: { text }, stat };
  const octal = (stat.mode & 0o777).toString(8);
  const warning = `${path} can be read by other users (mode ${octal}); run chmod 600 ${path}`;
  return { found: { text, warning }, stat };
}

/**
 * Whether a file is one user's alone to write (by default this process's user): its owner is
 * that user and neither its group nor others may write it. In a folder others may write (a
 * shared /tmp, a CI workspace), a file they made, or one they may rewrite, holds what they chose.
 */
export function isOwnFile(
  stat: Pick<Stats, 'uid' | 'mode'>,
  uid: number | undefined = process.getuid?.(),
): boolean {
  return (uid === undefined || stat.uid === uid) && (stat.mode & 0o022) === 0;
}

/**
 * A kept file found at `path`, refused unless it is this user's alone: a secret kept is one this
 * program made, and one another user made (a key of theirs beside a store in a shared folder) or
 * may rewrite is one they know.
 */
function ownKept(path: string, { found, stat }: { found: PrivateText; stat: Stats }): PrivateText {
  if (isOwnFile(stat)) return found;
  const uid = process.getuid?.();
  // chmod(2) makes a file of ours private; only chown(2), by root, makes another user's ours.
  const [whose, mine] =
    stat.uid === uid
      ? [`other users may write it (mode ${(stat.mode & 0o777).toString(8)})`, `chmod 600 ${path}`]
      : [
          `it belongs to another user (uid ${stat.uid})`,
          `chown ${uid} ${path} (as root) and chmod 600 ${path}`,
        ];
  throw new CardsError('USAGE', `${path} is not a secret of this user's: ${whose}.`, {
    hint: `whoever made or may write it knows it: if it is yours, run ${mine}; otherwise remove it, and keep the store in a folder only you can write`,
  });
}

/**
 * The text at `path`, or `make()`'s, written there when there is none; a racing maker's wins.
 * One found must be this user's alone (USAGE otherwise).
 */
export function keepPrivateFile(
  path: string,
  make: () => string,
): PrivateText & { readonly created: boolean } {
  const found = readWithStat(path);
  if (found) return { ...ownKept(path, found), created: false };
  const text = make();
  try {
    createFileSync(path, text, 0o600);
  } catch (err) {
    // Another process made it between our read and our create: theirs is the one.
    const theirs = (err as NodeJS.ErrnoException).code === 'EEXIST' && readWithStat(path);
    if (theirs) return { ...ownKept(path, theirs), created: false };
    throw err;
  }
  return { text, created: true };
}
