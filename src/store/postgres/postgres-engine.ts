/**
 * The PostgreSQL engine: any number of servers share one database and behave as one service —
 * its cards (postgres-store.ts), the secrets they keep (cards_keys: the first server to start
 * makes each, every other takes it up), the one transparency log's tiles (tiles.ts) and the
 * rate limits they count together (rate-buckets.ts). The
 * schema is migrated on open (migrate.ts); a newer one is refused untouched.
 */
import pg from 'pg';
import type { Engine, EngineOptions, KeptSecret, SecretName } from '../engine.js';
import { importInOrder } from '../import-cards.js';
import type { Database } from './database.js';
import {
  checkDatabaseUrl,
  isUndefinedTable,
  openFailure,
  redactUrl,
  unavailable,
} from './errors.js';
import { PostgresKeyknoxStore } from './keyknox-store.js';
import { PostgresStore } from './postgres-store.js';
import { PostgresRateBuckets } from './rate-buckets.js';
import * as SQL from './sql.js';
import { PostgresTiles } from './tiles.js';

export async function openPostgresEngine(url: string, options: EngineOptions): Promise<Engine> {
  const timeout = options.statementTimeoutMs;
  const cards = await PostgresStore.open({
    url,
    ...(options.poolSize !== undefined && { poolSize: options.poolSize }),
    ...(timeout !== undefined && { statementTimeoutMs: timeout, connectTimeoutMs: timeout }),
    ...(options.onWarning && { onWarning: options.onWarning }),
  });
  const close = (): Promise<void> => cards.close();
  return {
    name: 'postgres',
    durable: true,
    description: `PostgreSQL ${cards.location}`,
    cards,
    keyknox: new PostgresKeyknoxStore(cards.db),
    secrets: { keep: (name, make) => keepRow(cards.db, name, make) },
    tiles: new PostgresTiles(cards.db),
    rateBuckets: new PostgresRateBuckets(cards.db),
    migration: cards.migration,
    importCards: (source) => importInOrder(cards, source, { window: cards.importWindow }),
    close,
    // What a failed start made stays: another server may be using it already.
    discard: close,
  };
}

const keptIn = (name: SecretName): string => `kept in the database (cards_keys, name "${name}")`;

/** The row named `name`, or `make()`'s, inserted unless another server's got there first. */
async function keepRow(db: Database, name: SecretName, make: () => string): Promise<KeptSecret> {
  const where = keptIn(name);
  const read = async (): Promise<string | undefined> =>
    (await db.rows<{ pem: string }>(SQL.GET_KEY, [name]))[0]?.pem.trim();
  const found = await read();
  if (found !== undefined) return { value: found, created: false, where };
  const value = make().trim();
  const inserted = await db.query(SQL.PUT_KEY, [name, value]).catch((err: unknown) => {
    throw unavailable(err);
  });
  if (inserted.rowCount === 1) return { value, created: true, where };
  return { value: (await read()) ?? '', created: false, where };
}

/** The longest a peek waits to connect, and for its one statement, ms. */
const PEEK_TIMEOUT_MS = 5000;

/**
 * A secret kept in the database at `url`, read with one connection and without opening the
 * engine, so nothing is migrated or made (`cards jwt --store URL`); no value when there is none
 * or no schema yet. Failing to connect: openFailure's codes.
 */
export async function peekSecret(
  url: string,
  name: SecretName,
): Promise<{ value?: string; where: string }> {
  checkDatabaseUrl(url);
  const where = `kept in ${redactUrl(url)} (cards_keys, name "${name}")`;
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: PEEK_TIMEOUT_MS,
    statement_timeout: PEEK_TIMEOUT_MS,
    application_name: 'cards',
  });
  // An error on the idle socket after the query (the server going away) is not ours to throw.
  client.on('error', () => undefined);
  try {
    await client.connect();
    const { rows } = await client.query<{ pem: string }>(SQL.GET_KEY, [name]);
    const value = rows[0]?.pem.trim();
    return value === undefined ? { where } : { value, where };
  } catch (err) {
    if (isUndefinedTable(err)) return { where };
    throw openFailure(err, url);
  } finally {
    await client.end().catch(() => undefined);
  }
}
