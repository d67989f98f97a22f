/**
 * The card store on PostgreSQL: any number of `cards serve` processes share one database and
 * behave as one service. The database, not any process's memory, enforces the chain rules:
 * inserts go in by group commit (batch.ts), each batch one transaction that holds the counter row
 * every writer locks first, so racing inserts have one winner on whichever server they arrive;
 * unique id and unique previous_card_id back that up; a loser reads why from the committed state
 * (insert-conflict.ts), so its code and message are the JSON store's (40027, 40037, 40310).
 * Connections, timeouts and the 503 of a database that is away: database.ts.
 */
import { CardsError } from '../../core/errors.js';
import type {
  CardChain,
  CardEntry,
  CardStore,
  IdentityQuery,
  IdPrefixQuery,
  IdentitySummary,
  StoreStats,
  StoredCard,
} from '../store.js';
import { GroupCommit } from './batch.js';
import { Database, type DatabaseOptions } from './database.js';
import { checkDatabaseUrl, openFailure } from './errors.js';
import { insertConflict } from './insert-conflict.js';
import { Lookup } from './lookup.js';
import { migrate, type MigrationResult } from './migrate.js';
import { chainsOfRows, entryOf, storedCardOf, type CardRow } from './rows.js';
import * as SQL from './sql.js';

/** Cards in one transaction of the group commit at most; keys in one lookup at most. */
const MAX_BATCH = 500;
const MAX_KEYS = 500;
/**
 * Cards waiting for the group commit at most (four transactions' worth), more than the
 * connections a server serves at once by default (1,024, each with one create in flight): a
 * burst of honest creates waits its turn rather than being refused as busy, and a card is refused
 * with 503 only when more wait than four batches hold.
 */
const MAX_QUEUE = 4 * MAX_BATCH;

export class PostgresStore implements CardStore {
  readonly db: Database;
  readonly migration: MigrationResult;
  readonly #writer: GroupCommit;
  /** Gets by id and searches by identity asked together share a query (lookup.ts). */
  readonly #cards: Lookup<string, CardRow>;
  readonly #chains: Lookup<string, CardRow>;
  #count = 0;
  #appends = 0;
  #flushes = 0;
  #closed = false;

  private constructor(db: Database, migration: MigrationResult) {
    this.db = db;
    this.migration = migration;
    // A quarter of the pool each for gets and searches: the rest for the writer and the others.
    const maxInFlight = Math.max(1, Math.ceil(db.pool.options.max / 4));
    this.#cards = new Lookup({
      run: (ids) => db.rows<CardRow>(SQL.GET_CARDS, [ids]),
      keyOf: (row) => row.id,
      maxInFlight,
      maxKeys: MAX_KEYS,
    });
    this.#chains = new Lookup({
      run: (identities) => db.rows<CardRow>(SQL.CHAINS_OF, [identities]),
      keyOf: (row) => row.identity,
      maxInFlight,
      maxKeys: MAX_KEYS,
    });
    this.#writer = new GroupCommit(
      {
        connect: () => db.connect(),
        conflict: (card) => insertConflict(this, card),
        seqAfterLostAnswer: (id, cause) =>
          db.afterLostAnswer(
            async () => {
              const [row] = await db.rows<{ seq: string }>(SQL.SEQ_OF, [id]);
              return row && Number(row.seq);
            },
            cause,
            'Get the card by its id before sending it again.',
          ),
        maxQueue: MAX_QUEUE,
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
  static async open(options: DatabaseOptions): Promise<PostgresStore> {
    checkDatabaseUrl(options.url);
    const db = new Database(options);
    try {
      const store = new PostgresStore(db, await migrate(db.pool, db.location));
      await store.count();
      return store;
    } catch (err) {
      await db.end().catch(() => undefined);
      throw openFailure(err, options.url);
    }
  }

  /** The URL with the password redacted. */
  get location(): string {
    return this.db.location;
  }

  /** Cards a bulk import may have in flight: the writer's queue refuses more (a 503). */
  get importWindow(): number {
    return this.db.maxWaiting;
  }

  async getCard(id: string): Promise<CardEntry | undefined> {
    const [row] = await this.#cards.rows([id]);
    return row && entryOf(row);
  }

  async lastOfChain(id: string): Promise<CardEntry | undefined> {
    const [row] = await this.db.rows<CardRow>(SQL.LAST_OF_CHAIN, [id]);
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

  async listCards(afterSeq: number | undefined, limit: number): Promise<CardEntry[]> {
    return (await this.db.rows<CardRow>(SQL.LIST_CARDS, [afterSeq ?? -1, limit])).map(entryOf);
  }

  async cardsWithIdPrefix(query: IdPrefixQuery): Promise<CardEntry[]> {
    const rows = await this.db.rows<CardRow>(SQL.CARDS_WITH_ID_PREFIX, [
      query.prefix,
      query.after ?? null,
      query.limit,
    ]);
    return rows.map(entryOf);
  }

  async listIdentities(query: IdentityQuery): Promise<IdentitySummary[]> {
    const rows = await this.db.rows<{
      identity: string;
      cards: string;
      live_chains: string;
      revoked_chains: string;
    }>(SQL.LIST_IDENTITIES, [query.prefix ?? null, query.after ?? null, query.limit]);
    return rows.map((row) => ({
      identity: row.identity,
      cards: Number(row.cards),
      liveChains: Number(row.live_chains),
      revokedChains: Number(row.revoked_chains),
    }));
  }

  /** Empties the registry in one transaction; its secrets stay. */
  async reset(): Promise<void> {
    await this.db.transaction(async (client) => {
      for (const statement of SQL.RESET) await client.query(statement);
    }, 1);
    this.#count = 0;
  }

  /** Up to `limit` cards in insertion order from position `fromSeq`. */
  async scan(fromSeq: number, limit: number): Promise<StoredCard[]> {
    return (await this.db.rows<CardRow>(SQL.SCAN, [fromSeq, limit])).map(storedCardOf);
  }

  async count(): Promise<number> {
    const [row] = await this.db.rows<{ next_seq: string }>(SQL.COUNT);
    this.#count = Number(row?.next_seq ?? 0);
    return this.#count;
  }

  stats(): StoreStats {
    return { cards: this.#count, appends: this.#appends, flushes: this.#flushes, compactions: 0 };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#writer.idle();
    await this.count().catch(() => undefined); // the last count, for stats() after close
    await this.db.end();
  }
}
