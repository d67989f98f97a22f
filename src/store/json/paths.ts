/**
 * Where a store file's companions live: the one function every part of `cards` asks (the JSON
 * engine for its journal, lock, secrets and log folder, the CLI for the local app key, the
 * tests and the benchmark). Each companion keeps the store's whole file name and adds its own
 * ending, so `./data/cards.json` has `./data/cards.json.journal`, `.lock`, `.service-key.pem`
 * and `.app-key.pem`, and two stores of one stem (`a.json`, `a.db`) share nothing.
 *
 * Versions before this named companions after the stem (`cards.journal`, `cards.lock`,
 * `cards.service-key.pem`, `cards.app-key.pem`). An existing store that has such files and none
 * of the new ones keeps using them (`legacy`), so its keys and a journal left by a crash are
 * found; a new store always gets the new names.
 *
 * A store must never be one of its own companions (its journal is removed after each fold, its
 * lock is removed when stale): `checkCompanions` refuses such a store before anything is touched.
 */
import { existsSync, lstatSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { CardsError } from '../../core/errors.js';
import { SECRET_NAMES, type SecretName } from '../engine.js';

export interface StorePaths {
  readonly store: string;
  readonly journal: string;
}

export interface StoreCompanions extends StorePaths {
  /** Holds the owner of the one server using the store (lock.ts). */
  readonly lock: string;
  /** The log's tiles and checkpoint at their tlog-tiles paths, publishable as is (a folder). */
  readonly logDir: string;
  /** The last checkpoint the log key signed, kept outside the log folder (file-tiles.ts). */
  readonly logSigned: string;
  /** e3kit's Keyknox entries: a snapshot and the writes since, JSON lines (keyknox-file.ts). */
  readonly keyknox: string;
  /** The address of the server using the store, while it listens (src/server/owner-file.ts). */
  readonly address: string;
  /** The file of each kept secret (file-secrets.ts). */
  readonly secrets: Readonly<Record<SecretName, string>>;
  /** The names of a store made before companions kept the whole file name. */
  readonly legacy: boolean;
}

/** Each kept secret's ending: a PEM key file, or the admin token's one line. */
const SECRET_ENDINGS: Record<SecretName, string> = {
  'service-key': '.service-key.pem',
  'app-key': '.app-key.pem',
  'log-key': '.log-key.pem',
  'admin-token': '.admin-token',
  'pythia-secret': '.pythia-secret',
};
/** Each other companion's ending; temporary files (durable writes, lock, keys) end in `.tmp`. */
const ENDINGS = {
  journal: '.journal',
  lock: '.lock',
  logDir: '.log',
  logSigned: '.log-signed',
  keyknox: '.keyknox',
  address: '.address',
} as const;
const RESERVED = [...Object.values(ENDINGS), ...Object.values(SECRET_ENDINGS), '.takeover', '.tmp'];

type Named = Omit<StoreCompanions, 'store' | 'legacy'>;

const named = (base: string): Named => ({
  journal: `${base}${ENDINGS.journal}`,
  lock: `${base}${ENDINGS.lock}`,
  logDir: `${base}${ENDINGS.logDir}`,
  logSigned: `${base}${ENDINGS.logSigned}`,
  keyknox: `${base}${ENDINGS.keyknox}`,
  address: `${base}${ENDINGS.address}`,
  secrets: Object.fromEntries(
    SECRET_NAMES.map((name) => [name, `${base}${SECRET_ENDINGS[name]}`]),
  ) as Record<SecretName, string>,
});

/** Every companion file of `names`, by what it is. */
const files = (names: Named): [string, string][] => [
  ['journal', names.journal],
  ['lock', names.lock],
  ['log', names.logDir],
  ['log record', names.logSigned],
  ['Keyknox', names.keyknox],
  ['address', names.address],
  ...Object.entries(names.secrets),
];

export function storeCompanions(db: string, cwd = process.cwd()): StoreCompanions {
  const store = realStorePath(db, cwd);
  const current = named(store);
  const stem = storeStem(store);
  if (stem !== store && existsSync(store)) {
    const old = named(stem);
    // Older versions had no admin token nor log: only the companions they made tell an old store.
    const any = (names: Named): boolean =>
      [names.journal, names.lock, names.secrets['service-key'], names.secrets['app-key']].some(
        (file) => existsSync(file),
      );
    if (!any(current) && any(old)) return { store, ...old, legacy: true };
  }
  return { store, ...current, legacy: false };
}

export function storePaths(db: string, cwd = process.cwd()): StorePaths {
  const { store, journal } = storeCompanions(db, cwd);
  return { store, journal };
}

/** The store file's path without its extension: where older versions put its companions. */
const storeStem = (store: string): string => join(dirname(store), basename(store, extname(store)));

const refuse = (message: string): CardsError =>
  new CardsError('USAGE', message, {
    hint: 'give --db a store file of its own, e.g. cards.json (its companions sit beside it)',
  });

/**
 * Refuses a store that is, or may become, one of its companions: a name with a companion's
 * ending (`x.journal` would be the journal of a store `x`, and an older version's journal of
 * `x.json`), a path equal to a companion, or a companion that is a link (symbolic or hard) to
 * the store file. Checked before anything is made or removed.
 */
export function checkCompanions(companions: StoreCompanions): void {
  const { store } = companions;
  const ending = RESERVED.find((end) => basename(store).endsWith(end));
  if (ending !== undefined)
    throw refuse(
      `The store ${store} ends in "${ending}", the ending of a file the server keeps beside a store; it could be taken for one and removed.`,
    );
  const storeStat = statOf(store);
  for (const [what, file] of files(named(store)).concat(
    companions.legacy ? files(named(storeStem(store))) : [],
  )) {
    if (file === store) throw refuse(`The store ${store} is its own ${what} file.`);
    let link;
    try {
      link = lstatSync(file);
    } catch {
      continue;
    }
    const target = link.isSymbolicLink() ? statOf(file) : link;
    if (
      storeStat !== undefined &&
      target !== undefined &&
      target.dev === storeStat.dev &&
      target.ino === storeStat.ino
    )
      throw refuse(
        `${file} (the store's ${what} file) is a link to the store ${store} itself; removing it would lose the store.`,
      );
  }
}

function statOf(path: string): { dev: number; ino: number } | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/**
 * The store file's real path, so that every spelling of it, a symlink included, finds the same
 * journal (and the server the same lock and keys: one server per file).
 */
function realStorePath(db: string, cwd = process.cwd()): string {
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
