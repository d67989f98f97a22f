/**
 * Where a store keeps its companions: every file sits beside the store file and shares its
 * name, so `./data/cards.json` has `./data/cards.service-key.pem`, `./data/cards.app-key.pem`,
 * `./data/cards.journal` and `./data/cards.lock`. `cards serve` writes them; the CLI finds the
 * local app key through the same function, so a newcomer needs no flags.
 */
import { realpathSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';

export interface StorePaths {
  readonly store: string;
  readonly serviceKey: string;
  readonly appKey: string;
  readonly journal: string;
  readonly lock: string;
}

export const DEFAULT_DB = './cards.json';

export function storePaths(db: string, cwd = process.cwd()): StorePaths {
  const store = realStorePath(resolve(cwd, db));
  const stem = join(dirname(store), basename(store, extname(store)));
  return {
    store,
    serviceKey: `${stem}.service-key.pem`,
    appKey: `${stem}.app-key.pem`,
    journal: `${stem}.journal`,
    lock: `${stem}.lock`,
  };
}

/**
 * The store file's real path, so that every spelling of it, a symlink included, finds the same
 * lock, journal and keys (one server per file), and the CLI finds the app key the server made.
 */
function realStorePath(absolute: string): string {
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
