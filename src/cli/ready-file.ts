/**
 * The ready file of a command that serves (`cards serve`, `cards witness serve`): once it
 * listens, its start-up document as JSON written whole or not at all (a script that waits for
 * the file never reads half of it), removed at stop. Its folder is checked before anything
 * starts: a mistyped path stops start-up rather than a server that runs and never says so.
 * A file already there (a run killed before its stop, SIGKILL or a CI timeout) is removed as
 * start-up begins: a script waiting for the file reads this run's address and keys, never
 * the last run's, and finds none if this run fails to start.
 */
import { readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { CardsError } from '../core/errors.js';
import { replaceFileSync } from '../io/fs-durable.js';
import type { CommandContext } from './context.js';

/**
 * Removes a ready file a previous run left (its folder checked by refuseMissingFolder): only a
 * file that reads as one (a JSON object naming a `url` and a `pid`), never another file the
 * flag names by mistake (a store, a key).
 */
export function removeLeftReadyFile(cwd: string, file: string | undefined): void {
  if (file === undefined) return;
  const path = resolve(cwd, file);
  let left: unknown;
  try {
    if (statSync(path).size > READY_FILE_MAX) return;
    left = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return; // none, or not a ready file
  }
  const { url, pid } = (left ?? {}) as { url?: unknown; pid?: unknown };
  if (typeof url === 'string' && typeof pid === 'number') rmSync(path, { force: true });
}

/** A ready file is one line of start-up facts; anything larger is some other file. */
const READY_FILE_MAX = 64 * 1024;

/** Writes the ready file (mode 0600: it may hold an in-memory app key); returns its remover. */
export function writeReadyFile(cwd: string, file: string, info: object): () => void {
  const path = resolve(cwd, file);
  replaceFileSync(path, `${JSON.stringify(info)}\n`, 0o600);
  return () => rmSync(path, { force: true });
}

/**
 * A file the server writes later (the ready file once listening, a dump at stop) has its
 * folder checked before anything starts: a mistyped path stops start-up rather than a start
 * that made a store and then failed, or a stop that loses a --memory server's dump.
 */
export function refuseMissingFolder(
  ctx: CommandContext,
  flag: string,
  file: string | undefined,
): void {
  if (file === undefined) return;
  const folder = dirname(resolve(ctx.cwd, file));
  let isFolder = false;
  try {
    isFolder = statSync(folder).isDirectory();
  } catch {
    // missing, or not reachable: refused below
  }
  if (!isFolder)
    throw new CardsError(
      'USAGE',
      `${flag} ${file}: there is no folder ${folder} to write it in (it is not made).`,
    );
}
