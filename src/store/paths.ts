/**
 * Where the JSON store keeps its files: the store file and its journal beside it, sharing its
 * name (`./data/cards.json` has `./data/cards.journal`). What else a server keeps beside the
 * file (keys, lock) is the server's business: src/server/file-home.ts.
 */
import { realpathSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';

export interface StorePaths {
  readonly store: string;
  readonly journal: string;
}

export function storePaths(db: string, cwd = process.cwd()): StorePaths {
  const store = realStorePath(db, cwd);
  return { store, journal: `${storeStem(store)}.journal` };
}

/** The store file's path without its extension: companions add their own (`.journal`). */
export const storeStem = (store: string): string =>
  join(dirname(store), basename(store, extname(store)));

/**
 * The store file's real path, so that every spelling of it, a symlink included, finds the same
 * journal (and the server the same lock and keys: one server per file).
 */
export function realStorePath(db: string, cwd = process.cwd()): string {
  const absolute = resolve(cwd, db);
  try {
    return realpathSync.native(absolute);
  } catch {
    try {
      return join(realpathSync.native(dirname(absolute)), basename(absolute));
    } catch {
      return absolute; // the folder does not exist yet: the store makes it
    }
  }
}
