/**
 * The token buckets every server on one database shares (engine.ts `RateBuckets`; Pythia's
 * throttle): one row of cards_rate_buckets per key (sql.ts, migration 7), taken from by one
 * statement that reads and writes the row under its lock, on the database's clock, so that two
 * servers asked at once by one caller count both requests in one bucket. A bucket idle long
 * enough to be full again is the same as none, and is pruned now and then, so the table holds
 * the callers of the last few refill periods, not every caller ever.
 */
import { createHash } from 'node:crypto';
import type { RateBuckets } from '../engine.js';
import type { Database } from './database.js';
import { unavailable } from './errors.js';
import * as SQL from './sql.js';

/** Takes between two prunes of idle buckets, per server. */
const PRUNE_EVERY = 1000;

/** A key of any length as a fixed-size primary key (a PostgreSQL index row holds 2,704 bytes). */
const rowKey = (key: string): string => createHash('sha256').update(key).digest('base64');

export class PostgresRateBuckets implements RateBuckets {
  #takes = 0;

  constructor(readonly db: Database) {}

  async take(key: string, burst: number, refillMs: number): Promise<boolean> {
    // Not retried on a lost connection: the token may have been taken, and taking it twice
    // would throttle an honest caller.
    const result = await this.db
      .query(SQL.RATE_TAKE, [rowKey(key), burst, refillMs])
      .catch((err: unknown) => {
        throw unavailable(err);
      });
    if (++this.#takes % PRUNE_EVERY === 0)
      // The time a bucket takes to fill from empty: past it, a bucket is full, as a new one is.
      void this.db.query(SQL.RATE_PRUNE, [Math.ceil(burst * refillMs)]).catch(() => undefined);
    return (result.rows[0] as { granted: boolean } | undefined)?.granted === true;
  }

  async giveBack(key: string, burst: number): Promise<void> {
    await this.db.query(SQL.RATE_GIVE_BACK, [rowKey(key), burst]).catch(() => undefined);
  }
}
