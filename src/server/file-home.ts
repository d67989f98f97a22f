/**
 * The files beside a local JSON store, as the CLI finds them with `--db` (the local app key for
 * `cards jwt`, the service key for `cards inspect`, the admin token): named by the JSON engine
 * (src/store/json/paths.ts), which `cards serve` makes them with, so a newcomer needs no flags.
 */
import { storeCompanions } from '../store/json/paths.js';

export interface FileHome {
  /** The store file's real path (every spelling of it, a symlink included, finds one home). */
  readonly store: string;
  readonly serviceKey: string;
  readonly appKey: string;
  /** The admin API's bearer token, made on first start. */
  readonly adminToken: string;
  /** Holds the pid of the one server using the store. */
  readonly lock: string;
  /** `{url, pid}` of that server while it listens: where the store's own credentials may go. */
  readonly address: string;
  /** The transparency log's own Ed25519 key (not the service key), made on first start. */
  readonly logKey: string;
  /** The log's tiles and last checkpoint, at their tlog-tiles paths (publishable as is). */
  readonly logDir: string;
}

export function fileHome(db: string, cwd = process.cwd()): FileHome {
  const { store, secrets, lock, logDir, address } = storeCompanions(db, cwd);
  return {
    store,
    serviceKey: secrets['service-key'],
    appKey: secrets['app-key'],
    adminToken: secrets['admin-token'],
    lock,
    address,
    logKey: secrets['log-key'],
    logDir,
  };
}

/** `./data/cards.json` → `./data/cards.json.admin-token` (beside the store's other files). */
export const adminTokenPath = (db: string, cwd = process.cwd()): string =>
  fileHome(db, cwd).adminToken;
