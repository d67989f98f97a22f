/**
 * Which store a server, `cards export`, `cards import` and `cards db migrate` open, and opening
 * it (issue 14): a `postgres://` or `postgresql://` URL is the PostgreSQL store, anything else a
 * JSON store file. `cards serve` takes `--store`, then CARDS_STORE, then `--db`/CARDS_DB when
 * given, then DATABASE_URL, then the default file; nothing changes for a user who never asks
 * for PostgreSQL.
 */
import { CardsError } from '../core/errors.js';
import { MemoryStore } from '../store/memory/memory-store.js';
import { checkDatabaseUrl, redactUrl } from '../store/postgres/errors.js';
import { openPostgresStore } from '../store/postgres/postgres-store.js';
import type { CardStore } from '../store/store.js';
import { isStoreUrl } from './defaults.js';
import { openFileStore, type FileHome } from './file-home.js';

export { isStoreUrl };

export interface StoreTargetSources {
  /** `--store` (commander also fills it from CARDS_STORE). */
  readonly store?: string | undefined;
  /** `--db`, when given on the command line or through CARDS_DB (not its default). */
  readonly db?: string | undefined;
  /** The environment's DATABASE_URL. */
  readonly databaseUrl?: string | undefined;
  readonly fallback: string;
}

/** The store to open: --store / CARDS_STORE > --db / CARDS_DB > DATABASE_URL > the default. */
export function resolveStoreTarget(sources: StoreTargetSources): string {
  const given = (value: string | undefined): value is string => value !== undefined && value !== '';
  if (given(sources.store)) return sources.store;
  if (given(sources.db)) return sources.db;
  if (given(sources.databaseUrl)) return sources.databaseUrl;
  return sources.fallback;
}

export interface OpenStoreOptions {
  /** JSON store: fold the journal in past this many bytes. */
  readonly compactBytes?: number;
  /** PostgreSQL: connections at most. */
  readonly poolSize?: number;
  /** PostgreSQL: longest statement and longest wait for a connection, ms. */
  readonly statementTimeoutMs?: number;
  readonly onWarning?: (message: string) => void;
  /** A memory store (`cards serve --memory`): `target` is not used. */
  readonly memory?: boolean;
}

export interface OpenedStore {
  readonly store: CardStore;
  /** A JSON store's home (its key files and lock beside it); none on PostgreSQL. */
  readonly home: FileHome | undefined;
  /** Closes the store (idempotent) and releases what it held (a JSON store's lock). */
  close(): Promise<void>;
  /**
   * After a failed start: closes, and removes a JSON store this open created (with its folder
   * and journal) and the files in `alsoMade`, so a failed start leaves nothing behind.
   */
  discard(alsoMade: readonly string[]): Promise<void>;
}

/**
 * Opens the store at `target`: a PostgreSQL URL, or a JSON store file with its lock taken
 * (file-home.ts), so a server, `cards export` and `cards import` never share one file.
 */
export async function openStore(
  target: string,
  options: OpenStoreOptions = {},
): Promise<OpenedStore> {
  if (options.memory) {
    // `cards serve --memory`: nothing on disk at all.
    const store = new MemoryStore();
    return { store, home: undefined, close: () => store.close(), discard: () => store.close() };
  }
  const warn = options.onWarning && { onWarning: options.onWarning };
  if (isStoreUrl(target)) {
    checkDatabaseUrl(target);
    const store = await openPostgresStore({
      url: target,
      ...(options.poolSize !== undefined && { poolSize: options.poolSize }),
      ...(options.statementTimeoutMs !== undefined && {
        statementTimeoutMs: options.statementTimeoutMs,
        connectTimeoutMs: options.statementTimeoutMs,
      }),
      ...warn,
    });
    return { store, home: undefined, close: () => store.close(), discard: () => store.close() };
  }
  const opened = await openFileStore({
    path: target,
    ...(options.compactBytes !== undefined && { compactBytes: options.compactBytes }),
    ...warn,
  });
  return {
    store: opened.store,
    home: opened.home,
    close: () => opened.close(),
    discard: (alsoMade) => opened.discard(alsoMade),
  };
}

/** How a store is named to a person: the engine and where, a password never shown. */
export function describeStore(store: CardStore): string {
  if (store.engine === 'postgres') return `PostgreSQL ${redactUrl(store.location)}`;
  return store.location;
}

/** USAGE for a store that must be a file (a flag that only makes sense beside a JSON store). */
export function requireFileStore(target: string, what: string): void {
  if (isStoreUrl(target))
    throw new CardsError('USAGE', `${what} needs a JSON store file, not ${redactUrl(target)}.`);
}
