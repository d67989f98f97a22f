/**
 * The PostgreSQL engine's connections, in one place for its card store, its log tiles and its
 * secrets: a bounded pool (`poolSize` connections, at most `maxWaiting` requests waiting, each at
 * most `connectTimeoutMs`), a statement timeout on every connection, reads tried once more on a
 * connection the server dropped, transactions tried again on serialization failures, and every
 * failure while serving turned into 503 STORE_UNAVAILABLE (errors.ts). The pool replaces dead
 * connections by itself, so the engine comes back when the database does.
 */
import pg from 'pg';
import { CardsError, isCardsError } from '../../core/errors.js';
import { DEFAULT_POOL_SIZE, DEFAULT_STATEMENT_TIMEOUT_MS } from '../defaults.js';
import {
  isCommitInDoubt,
  isConnectionLost,
  isRetryable,
  redactUrl,
  unavailable,
} from './errors.js';
import type { Prepared } from './sql.js';

export interface DatabaseOptions {
  /** postgres://USER:PASSWORD@HOST:PORT/DATABASE */
  readonly url: string;
  /** Connections at most. */
  readonly poolSize?: number;
  /** Longest wait for a connection (a new one, or a free one of the pool), ms. */
  readonly connectTimeoutMs?: number;
  /** Longest statement, ms (PostgreSQL statement_timeout). */
  readonly statementTimeoutMs?: number;
  /** Told about failures that do not fail a request (a connection dropped while idle). */
  readonly onWarning?: (message: string) => void;
}

/** Clients given an 'error' listener of their own (withErrorListener). */
const LISTENED = new WeakSet<pg.PoolClient>();

/**
 * A checked-out client has no pool listener: a connection the server ends (or the network cuts)
 * between two statements would be an unhandled 'error' event and stop the process. Its next
 * query fails instead, and the pool discards it on release. Every `pool.connect()` goes through
 * here.
 */
export function withErrorListener(client: pg.PoolClient): pg.PoolClient {
  if (!LISTENED.has(client)) {
    LISTENED.add(client);
    client.on('error', () => undefined);
  }
  return client;
}

/** Attempts of a transaction: serialization failures are retried. */
const ATTEMPTS = 6;

export class Database {
  readonly pool: pg.Pool;
  /** The URL with the password redacted. */
  readonly location: string;
  /** Requests waiting for a connection at most; more get 503 at once. */
  readonly maxWaiting = 256;
  /** Longest statement, ms. */
  readonly statementTimeoutMs: number;

  constructor(options: DatabaseOptions) {
    const statementTimeout = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
    this.pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolSize ?? DEFAULT_POOL_SIZE,
      connectionTimeoutMillis: options.connectTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS,
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
    this.pool.on('error', (err: Error & { code?: string }) =>
      warn(`PostgreSQL dropped an idle connection (${err.code ?? 'connection lost'}).`),
    );
    this.location = redactUrl(options.url);
    this.statementTimeoutMs = statementTimeout;
  }

  /** 503 at once when too many requests wait for a connection. */
  #refuseWhenBusy(): void {
    if (this.pool.waitingCount >= this.maxWaiting)
      throw new CardsError(
        'STORE_UNAVAILABLE',
        'The card store (PostgreSQL) is busy: every connection is in use. Try again later.',
        { status: 503 },
      );
  }

  /** One statement on a pooled connection; 503 at once when too many wait for one. */
  async query(text: string | Prepared, values: unknown[] = []): Promise<pg.QueryResult> {
    this.#refuseWhenBusy();
    return typeof text === 'string'
      ? this.pool.query(text, values)
      : this.pool.query({ ...text, values });
  }

  /** A read's rows; tried once more on a dropped connection or a serialization failure. */
  async rows<Row>(text: string | Prepared, values: unknown[] = []): Promise<Row[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        return (await this.query(text, values)).rows as Row[];
      } catch (err) {
        if (attempt < 2 && (isConnectionLost(err) || isRetryable(err))) continue;
        throw unavailable(err);
      }
    }
  }

  /** A connection of the pool, or 503 when none can be had. */
  async connect(): Promise<pg.PoolClient> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw unavailable(err);
    }
    return withErrorListener(client);
  }

  /**
   * Runs `work` in one transaction, committed when it resolves and rolled back when it throws;
   * serialization failures and deadlocks run it again (up to `attempts` times in all).
   */
  async transaction<T>(
    work: (client: pg.PoolClient) => Promise<T>,
    attempts = ATTEMPTS,
  ): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const client = await this.connect();
      try {
        await client.query('BEGIN');
        const result = await work(client);
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        if (attempt < attempts && isRetryable(err)) {
          await backoff(attempt);
          continue;
        }
        throw isCardsError(err) ? err : unavailable(err);
      } finally {
        client.release();
      }
    }
  }

  /**
   * One write statement: the rows it changed. When its answer is lost after it was sent, it may
   * have landed all the same: `landed` reads from the database whether it did (afterLostAnswer),
   * and a write that landed counts as one row changed.
   */
  async write(
    text: string,
    values: unknown[],
    landed: () => Promise<boolean>,
    check: string,
  ): Promise<number> {
    this.#refuseWhenBusy();
    const client = await this.connect();
    try {
      const { rowCount } = await client.query(text, values);
      client.release();
      return rowCount ?? 0;
    } catch (err) {
      const lost = isCommitInDoubt(err);
      client.release(lost ? (err as Error) : undefined);
      if (lost && (await this.afterLostAnswer(landed, err, check))) return 1;
      throw unavailable(err);
    }
  }

  /**
   * What a write whose answer was lost did (errors.ts, `isCommitInDoubt`), as `ask` reads it
   * from the database once it answers again: asked until three statement timeouts have passed,
   * then 503 saying the write may have landed, and `check` how to find out.
   */
  async afterLostAnswer<T>(ask: () => Promise<T>, cause: unknown, check: string): Promise<T> {
    const deadline = Date.now() + 3 * this.statementTimeoutMs;
    for (let attempt = 1; ; attempt++) {
      try {
        return await ask();
      } catch {
        if (Date.now() >= deadline)
          throw new CardsError(
            'STORE_UNAVAILABLE',
            `The card store (PostgreSQL) went away during this write, so whether it was stored is not known. ${check}`,
            { cause, status: 503 },
          );
        await backoff(Math.min(attempt, 8));
      }
    }
  }

  end(): Promise<void> {
    return this.pool.end();
  }
}

/** The wait before try `attempt + 1`: 2^attempt ms and up to 10 ms of jitter. */
export const backoff = (attempt: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, 2 ** attempt + Math.random() * 10));
