/**
 * The card store on PostgreSQL (issue 14): any number of `cards serve` processes share one
 * database and behave as one service. The database, not any process's memory, enforces the
 * chain rules: inserts go in by group commit (postgres-batch.ts), each batch one transaction that
 * holds the counter row every writer locks first, so racing inserts have one winner on whichever
 * server they arrive; unique id and unique previous_card_id back that up; a loser reads why from
 * the committed state (insert-conflict.ts), so its code and message are the JSON store's (40027,
 * 40037, 40310).
 *
 * Faults: a bounded pool (`poolSize` connections, at most `maxWaiting` requests waiting, each at
 * most `connectTimeoutMs`), a statement timeout on every connection, and every database failure
 * while serving is 503 STORE_UNAVAILABLE (postgres-errors.ts). The pool replaces dead
 * connections by itself, so the store comes back when the database does.
 */
import pg from 'pg';
import { CardsError, isCardsError } from '../../core/errors.js';
import { insertConflict } from './insert-conflict.js';
import { GroupCommit } from './batch.js';
import { Lookup } from './lookup.js';
import {
  checkDatabaseUrl,
  isConnectionLost,
  isRetryable,
  isUndefinedTable,
  isUniqueViolation,
  openFailure,
  redactUrl,
  unavailable,
} from './errors.js';
import { migrate, type MigrationResult } from './migrate.js';
import { chainsOfRows, entryOf, storedCardOf, type CardRow } from './rows.js';
import * as SQL from './sql.js';
import {
  wireJsonOf,
  type CardChain,
  type CardEntry,
  type CardStore,
  type IdentityQuery,
  type IdentitySummary,
  type StoreStats,
  type StoredCard,
} from '../store.js';

export interface PostgresStoreOptions {
  /** postgres://USER:PASSWORD@HOST:PORT/DATABASE */
  readonly url: string;
  /** Connections at most. Default 10. */
  readonly poolSize?: number;
  /** Requests waiting for a connection at most; more get 503 at once. Default 256. */
  readonly maxWaiting?: number;
  /** Longest wait for a connection (a new one, or a free one of the pool), ms. Default 5000. */
  readonly connectTimeoutMs?: number;
  /** Longest statement, ms (PostgreSQL statement_timeout). Default 5000. */
  readonly statementTimeoutMs?: number;
  /** Told about failures that do not fail a request (a connection dropped while idle). */
  readonly onWarning?: (message: string) => void;
}

/** Clients given an 'error' listener of their own (see #connect). */
const LISTENED = new WeakSet<pg.PoolClient>();

/** Attempts of the log's transaction: serialization failures are retried. */
const ATTEMPTS = 6;

/** Cards in one transaction of the group commit at most; keys in one lookup at most. */
const MAX_BATCH = 500;
const MAX_KEYS = 500;

export class PostgresStore implements CardStore {
  readonly engine = 'postgres';
  /** The URL with the password redacted. */
  readonly location: string;
  readonly migration: MigrationResult;
  readonly #pool: pg.Pool;
  readonly #maxWaiting: number;
  readonly #writer: GroupCommit;
  /** Gets by id and searches by identity asked together share a query (postgres-lookup.ts). */
  readonly #cards: Lookup<string, CardRow>;
  readonly #chains: Lookup<string, CardRow>;
  #count = 0;
  #appends = 0;
  #flushes = 0;
  #closed = false;

  private constructor(pool: pg.Pool, location: string, migration: MigrationResult, max: number) {
    this.#pool = pool;
    // A quarter of the pool each for gets and searches: the rest for the writer and the others.
    const maxInFlight = Math.max(1, Math.ceil(pool.options.max / 4));
    this.#cards = new Lookup({
      run: (ids) => this.#rows(SQL.GET_CARDS, [ids]),
      keyOf: (row) => row.id,
      maxInFlight,
      maxKeys: MAX_KEYS,
    });
    this.#chains = new Lookup({
      run: (identities) => this.#rows(SQL.CHAINS_OF, [identities]),
      keyOf: (row) => row.identity,
      maxInFlight,
      maxKeys: MAX_KEYS,
    });
    this.location = location;
    this.migration = migration;
    this.#maxWaiting = max;
    this.#writer = new GroupCommit(
      {
        connect: () => this.#connect(),
        conflict: (card) => insertConflict(this, card),
        maxQueue: max,
        maxBatch: MAX_BATCH,
      },
      ({ cards, nextSeq }) => {
        this.#appends += cards;
        this.#flushes++;
        this.#count = Math.max(this.#count, nextSeq);
      },
    );
  }

  /** Connects, migrates the schema (refusing a newer one), and reads the count. */
  static async open(options: PostgresStoreOptions): Promise<PostgresStore> {
    checkDatabaseUrl(options.url);
    const poolSize = options.poolSize ?? 10;
    const statementTimeout = options.statementTimeoutMs ?? 5000;
    const pool = new pg.Pool({
      connectionString: options.url,
      max: poolSize,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
      idleTimeoutMillis: 30_000,
      statement_timeout: statementTimeout,
      // The client gives up too, should the server not even answer (a network partition).
      query_timeout: statementTimeout + 1000,
      idle_in_transaction_session_timeout: statementTimeout * 2,
      keepAlive: true,
      application_name: 'cards',
    });
    const warn = options.onWarning ?? (() => undefined);
    // A pooled connection the server dropped while idle: the pool discards it and makes another.
    pool.on('error', (err: Error & { code?: string }) =>
      warn(`PostgreSQL dropped an idle connection (${err.code ?? 'connection lost'}).`),
    );
    const location = redactUrl(options.url);
    try {
      const migration = await migrate(pool, location);
      const store = new PostgresStore(pool, location, migration, options.maxWaiting ?? 256);
      await store.count();
      return store;
    } catch (err) {
      await pool.end().catch(() => undefined);
      throw openFailure(err, options.url);
    }
  }

  async getCard(id: string): Promise<CardEntry | undefined> {
    const [row] = await this.#cards.rows([id]);
    return row && entryOf(row);
  }

  async lastOfChain(id: string): Promise<CardEntry | undefined> {
    const [row] = await this.#rows(SQL.LAST_OF_CHAIN, [id]);
    return row && entryOf(row);
  }

  async chainsOf(identities: readonly string[]): Promise<CardChain[]> {
    const unique = [...new Set(identities)];
    if (unique.length === 0) return [];
    return chainsOfRows(await this.#chains.rows(unique), unique);
  }

  async insert(card: StoredCard): Promise<CardEntry> {
    if (this.#closed) throw new CardsError('STORE_UNAVAILABLE', 'The store is closed.');
    return this.#writer.insert(card);
  }

  /**
   * Stores a batch of cards in one transaction, in order, for `cards import` into a store:
   * the chain rules are checked here against the batch and the stored cards, the unique
   * constraints refuse duplicates and second successors. Rejects with the first refusal;
   * then nothing of the batch is stored.
   */
  async insertMany(cards: readonly StoredCard[]): Promise<void> {
    if (cards.length === 0) return;
    const client = await this.#connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<{ next_seq: string }>(SQL.LOCK_COUNTER);
      let seq = Number(rows[0]?.next_seq ?? 0);
      const wanted = cards.flatMap((card) => card.previous_card_id ?? []);
      type Fact = { identity: string; revoking: boolean; chain_id: string; chain_seq: number };
      const facts = new Map<string, Fact>();
      for (const row of (await client.query(SQL.PREVIOUS_OF, [wanted])).rows as (Fact & {
        id: string;
      })[])
        facts.set(row.id, { ...row, chain_seq: Number(row.chain_seq) });
      const columns: unknown[][] = [[], [], [], [], [], [], [], []];
      for (const card of cards) {
        const previous = card.previous_card_id && facts.get(card.previous_card_id);
        if (card.previous_card_id !== undefined) {
          if (!previous) throw await this.#refusal(card);
          if (previous.identity !== card.identity || previous.revoking)
            throw await this.#refusal(card);
        }
        const fact = previous
          ? { ...previous, revoking: card.revoking === true, identity: card.identity }
          : {
              identity: card.identity,
              revoking: card.revoking === true,
              chain_id: card.id,
              chain_seq: seq,
            };
        facts.set(card.id, fact);
        const row = [
          card.id,
          seq++,
          card.identity,
          card.previous_card_id ?? null,
          card.revoking === true,
          fact.chain_id,
          fact.chain_seq,
          wireJsonOf(card),
        ];
        row.forEach((value, i) => (columns[i] as unknown[]).push(value));
      }
      try {
        await client.query(SQL.INSERT_BATCH, columns);
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
        throw new CardsError('SNAPSHOT_NOT_UNIQUE', uniqueMessage(err));
      }
      await client.query(SQL.SET_COUNTER, [seq]);
      await client.query('COMMIT');
      this.#count = seq;
      this.#appends += cards.length;
      this.#flushes++;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw unavailable(err);
    } finally {
      client.release();
    }
  }

  async listCards(afterSeq: number | undefined, limit: number): Promise<CardEntry[]> {
    return (await this.#rows(SQL.LIST_CARDS, [afterSeq ?? -1, limit])).map(entryOf);
  }

  async listIdentities(query: IdentityQuery): Promise<IdentitySummary[]> {
    const rows = (
      await this.#query(SQL.LIST_IDENTITIES, [
        query.prefix ?? null,
        query.after ?? null,
        query.limit,
      ]).catch((err: unknown) => {
        throw unavailable(err);
      })
    ).rows as { identity: string; cards: string; live_chains: string; revoked_chains: string }[];
    return rows.map((row) => ({
      identity: row.identity,
      cards: Number(row.cards),
      liveChains: Number(row.live_chains),
      revokedChains: Number(row.revoked_chains),
    }));
  }

  /** Empties the registry in one transaction; its keys stay. */
  async reset(): Promise<void> {
    const client = await this.#connect();
    try {
      await client.query('BEGIN');
      for (const statement of SQL.RESET) await client.query(statement);
      await client.query('COMMIT');
      this.#count = 0;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw unavailable(err);
    } finally {
      client.release();
    }
  }

  /** Up to `limit` cards in insertion order from position `fromSeq`. */
  async scan(fromSeq: number, limit: number): Promise<StoredCard[]> {
    return (await this.#rows(SQL.SCAN, [fromSeq, limit])).map(storedCardOf);
  }

  async count(): Promise<number> {
    const [row] = (await this.#query(SQL.COUNT, [])).rows as { next_seq: string }[];
    this.#count = Number(row?.next_seq ?? 0);
    return this.#count;
  }

  stats(): StoreStats {
    return { cards: this.#count, appends: this.#appends, flushes: this.#flushes, compactions: 0 };
  }

  /** A key kept in the database (cards_keys): the one there, or `make()`'s, stored first wins. */
  async keptKey(name: string, make: () => string): Promise<{ pem: string; created: boolean }> {
    const read = async (): Promise<string | undefined> =>
      ((await this.#query(SQL.GET_KEY, [name])).rows[0] as { pem: string } | undefined)?.pem;
    const found = await read();
    if (found !== undefined) return { pem: found, created: false };
    const pem = make();
    const { rowCount } = await this.#query(SQL.PUT_KEY, [name, pem]);
    if (rowCount === 1) return { pem, created: true };
    return { pem: (await read()) as string, created: false };
  }

  /** The transparency log's state (its tables, migration 3): the checkpoint and the epoch. */
  async logState(): Promise<LogStateRow> {
    const [row] = await this.#rows<Record<string, unknown>>(SQL.LOG_STATE, []);
    return stateOf(row);
  }

  /** A tile or bundle of the transparency log, by tlog-tiles path. */
  async logTile(path: string): Promise<Uint8Array | undefined> {
    const [row] = await this.#rows<{ data: Buffer }>(SQL.LOG_TILE, [path]);
    return row ? new Uint8Array(row.data) : undefined;
  }

  /**
   * Runs `change` as the transparency log's only writer across every server: one transaction
   * holding the state row's lock; its tile and checkpoint writes commit together, or none do.
   * Serialization failures are retried (the whole `change` again).
   */
  async logUpdate<T>(change: (tx: LogTransaction) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const client = await this.#connect();
      try {
        await client.query('BEGIN');
        const state = stateOf((await client.query(SQL.LOG_STATE_LOCKED)).rows[0]);
        const result = await change({
          ...state,
          tile: async (path) => {
            const row = (await client.query(SQL.LOG_TILE, [path])).rows[0];
            return row ? new Uint8Array(row.data) : undefined;
          },
          putTiles: async (tiles) => {
            if (tiles.length === 0) return;
            const paths = tiles.map((t) => t.path);
            const data = tiles.map((t) =>
              Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength),
            );
            await client.query(SQL.LOG_PUT_TILES, [paths, data]);
          },
          deleteTiles: async (paths) => {
            if (paths.length > 0) await client.query(SQL.LOG_DELETE_TILES, [paths]);
          },
          setCheckpoint: async (signed) => {
            await client.query(SQL.LOG_SET_CHECKPOINT, [signed]);
          },
          clearTiles: async () => {
            await client.query(SQL.LOG_CLEAR_TILES);
          },
        });
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        if (attempt < ATTEMPTS && isRetryable(err)) {
          await backoff(attempt);
          continue;
        }
        throw isCardsError(err) ? err : unavailable(err);
      } finally {
        client.release();
      }
    }
  }

  /** Replaces checkpoint `current` with `next` unless another writer moved it. */
  async logReplaceCheckpoint(current: string, next: string): Promise<boolean> {
    try {
      return (await this.#query(SQL.LOG_REPLACE_CHECKPOINT, [current, next])).rowCount === 1;
    } catch (err) {
      throw unavailable(err);
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#writer.idle();
    await this.count().catch(() => undefined); // the last count, for stats() after close
    await this.#pool.end();
  }

  async #refusal(card: StoredCard): Promise<CardsError> {
    return (await insertConflict(this, card)) ?? new CardsError('PREVIOUS_NOT_FOUND');
  }

  async #rows<Row = CardRow>(text: string | SQL.Prepared, values: unknown[]): Promise<Row[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        return (await this.#query(text, values)).rows as Row[];
      } catch (err) {
        // A read is safe to repeat: once on a connection the server dropped while it was idle.
        if (attempt < 2 && (isConnectionLost(err) || isRetryable(err))) continue;
        throw unavailable(err);
      }
    }
  }

  async #query(text: string | SQL.Prepared, values: unknown[]): Promise<pg.QueryResult> {
    if (this.#pool.waitingCount >= this.#maxWaiting)
      throw new CardsError(
        'STORE_UNAVAILABLE',
        'The card store (PostgreSQL) is busy: every connection is in use. Try again later.',
        { status: 503 },
      );
    return typeof text === 'string'
      ? this.#pool.query(text, values)
      : this.#pool.query({ ...text, values });
  }

  async #connect(): Promise<pg.PoolClient> {
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (err) {
      throw unavailable(err);
    }
    // A checked-out client has no pool listener: a connection the server ends between two
    // statements (a shutdown) would be an unhandled 'error' event and stop the process. Its
    // next query fails instead, and the pool discards it on release.
    if (!LISTENED.has(client)) {
      LISTENED.add(client);
      client.on('error', () => undefined);
    }
    return client;
  }
}

/** The transparency log's state row. */
export interface LogStateRow {
  /** The last signed checkpoint, or undefined before the log began. */
  readonly checkpoint: string | undefined;
  /** New logs begun by resets of the registry. */
  readonly epoch: number;
}

/** What the log's writer does inside `logUpdate`'s transaction. */
export interface LogTransaction extends LogStateRow {
  tile(path: string): Promise<Uint8Array | undefined>;
  putTiles(tiles: readonly { path: string; data: Uint8Array }[]): Promise<void>;
  deleteTiles(paths: readonly string[]): Promise<void>;
  setCheckpoint(signed: string): Promise<void>;
  clearTiles(): Promise<void>;
}

const stateOf = (row: Record<string, unknown> | undefined): LogStateRow => ({
  checkpoint: (row?.checkpoint as string | null) ?? undefined,
  epoch: Number(row?.epoch ?? 0),
});

const backoff = (attempt: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, 2 ** attempt + Math.random() * 10));

function uniqueMessage(err: unknown): string {
  const detail = (err as { detail?: string }).detail ?? '';
  const id = /=\(([0-9a-f]{64})\)/.exec(detail)?.[1];
  return id
    ? `Card content snapshot is not unique: card ${id} is there twice, or two cards name it as previous.`
    : 'A card is there twice, or two cards name the same previous card.';
}

export const openPostgresStore = (options: PostgresStoreOptions): Promise<PostgresStore> =>
  PostgresStore.open(options);

/**
 * A key kept in the database at `url` (cards_keys; `keptKey` above), read with one connection
 * and without opening the store, so nothing is migrated or made (`cards jwt --store URL`);
 * undefined when there is none, or no schema yet. Failing to connect: openFailure's codes.
 */
export async function readKeptKey(
  url: string,
  name: string,
  timeoutMs = 5000,
): Promise<string | undefined> {
  checkDatabaseUrl(url);
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: timeoutMs,
    statement_timeout: timeoutMs,
    application_name: 'cards',
  });
  // An error on the idle socket after the query (the server going away) is not ours to throw.
  client.on('error', () => undefined);
  try {
    await client.connect();
    const { rows } = await client.query<{ pem: string }>(SQL.GET_KEY, [name]);
    return rows[0]?.pem;
  } catch (err) {
    if (isUndefinedTable(err)) return undefined;
    throw openFailure(err, url);
  } finally {
    await client.end().catch(() => undefined);
  }
}
