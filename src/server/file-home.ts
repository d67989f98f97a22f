/**
 * The home of a server whose store is a JSON file: every file it keeps sits beside the store
 * file and keeps its whole name, so `./data/cards.json` has `./data/cards.json.service-key.pem`,
 * `./data/cards.json.app-key.pem` and `./data/cards.json.lock` (and the store's own
 * `./data/cards.json.journal`), the transparency log's key `./data/cards.json.log-key.pem` and
 * its tiles `./data/cards.json.log/`; a store made by an older version keeps its `cards.*` names. The
 * names come from one function, storeCompanions (src/store/paths.ts). `cards serve` writes
 * them; the CLI finds the local app key through the same function, so a newcomer needs no
 * flags. A server on another engine has no "files beside the store": it gets a `ServerHome`
 * some other way.
 */
import { existsSync } from 'node:fs';
import { mkdir, rm, rmdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { openJsonStore, type JsonStore, type JsonStoreOptions } from '../store/json/json-store.js';
import { checkCompanions, storeCompanions, storePaths } from '../store/json/paths.js';
import { acquireLock } from '../store/json/lock.js';

/** Where a server keeps its own key files, whatever its store. */
export interface ServerHome {
  readonly serviceKey: string;
  readonly appKey: string;
}

export interface FileHome extends ServerHome {
  /** The admin API's bearer token (issue 15), made on first start (admin-token.ts). */
  readonly adminToken: string;
  /** The store file's real path (every spelling of it, a symlink included, finds one home). */
  readonly store: string;
  /** Holds the pid of the one server using the store (lock.ts). */
  readonly lock: string;
  /** The transparency log's own Ed25519 key (not the service key), made on first start. */
  readonly logKey: string;
  /** The log's tiles and last checkpoint, at their tlog-tiles paths (publishable as is). */
  readonly logDir: string;
}

export function fileHome(db: string, cwd = process.cwd()): FileHome {
  const { store, serviceKey, appKey, adminToken, lock, logKey, logDir } = storeCompanions(db, cwd);
  return { store, serviceKey, appKey, adminToken, lock, logKey, logDir };
}

export interface OpenedFileStore {
  readonly home: FileHome;
  readonly store: JsonStore;
  /** The store file did not exist before this open: it is new. */
  readonly created: boolean;
  /** Closes the store (idempotent), then releases the lock. */
  close(): Promise<void>;
  /**
   * For a start that failed after the open: closes, removes `alsoMade` (keys this start made:
   * nothing was signed with them) and, when the store is new, what the open made (the store
   * file, its journal, the folders made for it), so a failed start leaves nothing behind.
   */
  discard(alsoMade: readonly string[]): Promise<void>;
}

/**
 * Takes the store's lock (STORE_LOCKED when another server holds it), then opens the JSON store;
 * a store that cannot be opened releases the lock again, so a refusal leaves no lock behind.
 */
export async function openFileStore(options: JsonStoreOptions): Promise<OpenedFileStore> {
  // A store that is, or links to, one of its companions is refused before anything is made.
  checkCompanions(storeCompanions(options.path));
  const folder = dirname(resolve(options.path));
  const madeFolder = await mkdir(folder, { recursive: true });
  const home = fileHome(options.path);
  const created = !existsSync(home.store);
  const lock = await acquireLock(home.lock, home.store);
  let store: JsonStore;
  try {
    store = await openJsonStore(options);
  } catch (err) {
    await lock.release();
    throw err;
  }
  const warn = options.onWarning ?? (() => undefined);
  const close = async (): Promise<void> => {
    try {
      await store.close();
    } finally {
      // A lock left behind names a dead pid and is taken over: never mask an error above.
      await lock
        .release()
        .catch((err: Error) => warn(`Cannot remove the lock ${home.lock}: ${err.message}`));
    }
  };
  return {
    home,
    store,
    created,
    close,
    async discard(alsoMade) {
      if (!created) {
        await close();
        for (const file of alsoMade) await rm(file, { force: true, recursive: true });
        return;
      }
      // Removed under the lock, so no other server can have started on the new store.
      try {
        await store.close();
        for (const file of [home.store, storePaths(home.store).journal, ...alsoMade])
          await rm(file, { force: true, recursive: true });
      } finally {
        await lock.release().catch(() => undefined);
      }
      if (madeFolder === undefined) return;
      // From the store's folder up to the first one this open made; a folder holding
      // anything else (rmdir refuses) is kept.
      for (let dir = folder; dir.startsWith(madeFolder); dir = dirname(dir))
        if (
          !(await rmdir(dir).then(
            () => true,
            () => false,
          ))
        )
          break;
    },
  };
}
