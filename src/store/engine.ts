/**
 * The engine contract: one object holding everything a server keeps in its place of truth — the
 * cards (the card store, store.ts), the secrets it keeps (keys and the admin token: "keep this or
 * make it"), e3kit's Keyknox entries, the transparency log's tiles and checkpoint (src/log/tile-store.ts), bulk import, a
 * line that describes it, and close. The server, the CLI and the HTTP app hold an Engine and never
 * ask which one it is.
 *
 * Engines: memory/ (forgets on close), json/ (a JSON file and the files beside it), postgres/
 * (shared by several servers), each whole in its folder and listed in engines.ts. Every one
 * passes the engine contract suite in test/store/ (docs/development.md: adding an engine).
 */
import type { TileStore } from '../log/tile-store.js';
import type { KeyknoxStore } from './keyknox.js';
import type { CardStore, StoredCard } from './store.js';

/**
 * The secrets a server keeps. Another kept secret is another name here; the JSON engine names
 * its file (json/paths.ts, checked by the compiler), the others need nothing more.
 */
export const SECRET_NAMES = [
  'service-key',
  'app-key',
  'log-key',
  'admin-token',
  'pythia-secret',
] as const;
export type SecretName = (typeof SECRET_NAMES)[number];

export interface KeptSecret {
  /** The text kept (a PEM key, a token), without surrounding white space. */
  readonly value: string;
  /** Made by this call, not found. */
  readonly created: boolean;
  /** Where it is kept, for people: "file /data/cards.json.app-key.pem", "kept in the database …". */
  readonly where: string;
  /** The file holding it, when the engine keeps it in one (named the same for the CLI). */
  readonly path?: string;
  /** Worth telling the operator (a key file other users can read). */
  readonly warning?: string;
}

export interface SecretKeeper {
  /**
   * The secret kept under `name`, or else `make()`'s, kept from now on (durably, on a durable
   * engine). Two servers making one at once: the first kept wins, and both get it. The value is
   * the caller's to check: an engine keeps text.
   */
  keep(name: SecretName, make: () => string): Promise<KeptSecret>;
}

/**
 * Token buckets every server on a shared engine counts in (Pythia's throttle): a bucket holds up
 * to `burst` tokens and gains one every `refillMs`, on the engine's one clock, so requests
 * spread over several servers are counted as the deployed service, one service, counts them.
 */
export interface RateBuckets {
  /** Takes a token from the bucket `key`; false when it has none (nothing is taken). */
  take(key: string, burst: number, refillMs: number): Promise<boolean>;
  /** Gives back a token taken from `key` (a request refused for its input was not served). */
  giveBack(key: string, burst: number): Promise<void>;
}

/** What opening an engine may be told; each engine reads what concerns it. */
export interface EngineOptions {
  /** JSON: fold the journal into the store file past this many bytes. */
  readonly compactBytes?: number;
  /** PostgreSQL: connections at most. */
  readonly poolSize?: number;
  /** PostgreSQL: longest statement and longest wait for a connection, ms. */
  readonly statementTimeoutMs?: number;
  /** Told about failures that fail no request (a torn journal tail, a dropped connection). */
  readonly onWarning?: (message: string) => void;
}

export interface Engine {
  /** Its name in the engine list ("memory", "json", "postgres"). */
  readonly name: string;
  /** What it holds survives close and reopen (memory: false, it forgets). */
  readonly durable: boolean;
  /** One line for people, a password never shown ("/data/cards.json", "PostgreSQL postgres://…"). */
  readonly description: string;
  readonly cards: CardStore;
  readonly secrets: SecretKeeper;
  /** e3kit's Keyknox v1 blobs and v2 entries (keyknox.ts), as durable as the cards. */
  readonly keyknox: KeyknoxStore;
  /** The log's tiles; `shared` when several servers write them (PostgreSQL). */
  readonly tiles: TileStore;
  /**
   * Rate limits every server on the engine shares, on an engine several servers share
   * (PostgreSQL). An engine one server holds alone (memory, a locked JSON file) has none: that
   * server's own count is the engine's.
   */
  readonly rateBuckets?: RateBuckets;
  /** Schema versions found and reached on open, for an engine with migrations (PostgreSQL). */
  readonly migration?: { readonly from: number; readonly to: number };
  /**
   * Stores cards read from a dump, in order, as fast as the engine allows (several inserts in
   * flight, sharing its group commit), each through the card store's atomic insert, so the chain
   * rules hold. The caller checked each card and that the store is empty. Resolves with the count;
   * a refusal rejects with an ImportError naming the card (cards before it may be stored).
   */
  importCards(cards: AsyncIterable<StoredCard>): Promise<number>;
  /** Finishes pending writes and releases what the engine holds (a lock, connections). */
  close(): Promise<void>;
  /**
   * After a start that failed: closes, and removes what this open made (a new store file, its
   * folder, secrets made, the log's new folder), so a failed start leaves nothing behind.
   */
  discard(): Promise<void>;
}

/** One line of the engine list (engines.ts): which targets it opens, and opening one. */
export interface EngineKind {
  readonly name: string;
  /** The targets it opens, for messages ("a PostgreSQL URL (postgres://…)"). */
  readonly targets: string;
  matches(target: string): boolean;
  open(target: string, options: EngineOptions): Promise<Engine>;
  /**
   * A secret kept at `target`, read without opening the engine: nothing is made, migrated or
   * locked (`cards jwt --store URL`). `value` undefined: none kept there yet.
   */
  peek?(target: string, name: SecretName): Promise<{ value?: string; where: string }>;
}

/** A bulk import stopped at the card at `index` (from 0, in the order given) for `cause`. */
export class ImportError extends Error {
  constructor(
    readonly index: number,
    readonly card: StoredCard,
    override readonly cause: unknown,
  ) {
    super(`card ${index + 1} (${card.id}) was refused: ${(cause as Error).message}`);
  }
}
