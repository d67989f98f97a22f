/**
 * The PostgreSQL engine's schema, created and migrated by numbered migrations (sql.ts).
 *
 * Safe when several servers start at once, without advisory locks (so CockroachDB and
 * YugabyteDB run it too): each migration runs in one transaction that first inserts its row in
 * cards_migrations; a second server's insert of the same id waits for the first transaction and
 * then fails on the primary key, so it rolls back and finds the migration applied. A database
 * whose schema is newer than this code knows is refused untouched (STORE_CORRUPT), as a newer
 * JSON store file is.
 */
import type pg from 'pg';
import { CardsError } from '../../core/errors.js';
import { withErrorListener } from './database.js';
import { isDuplicateTable, isRetryable, isUniqueViolation } from './errors.js';
import {
  APPLIED_VERSION,
  CREATE_MIGRATIONS,
  MIGRATIONS,
  RECORD_MIGRATION,
  SCHEMA_VERSION,
} from './sql.js';

export interface MigrationResult {
  /** Schema version found. */
  readonly from: number;
  /** Schema version now. */
  readonly to: number;
}

async function appliedVersion(client: pg.PoolClient): Promise<number> {
  const { rows } = await client.query<{ version: number }>(APPLIED_VERSION);
  return Number(rows[0]?.version ?? 0);
}

/** Creates the migrations table; two servers doing so at once may collide in the catalog. */
async function ensureMigrationsTable(client: pg.PoolClient): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await client.query(CREATE_MIGRATIONS);
      return;
    } catch (err) {
      // Another server created it between our check and our create: its catalog row (23505)
      // or the table (42P07).
      if (attempt < 3 && (isUniqueViolation(err) || isDuplicateTable(err) || isRetryable(err)))
        continue;
      throw err;
    }
  }
}

function refuseNewer(version: number, location: string): CardsError {
  return new CardsError(
    'STORE_CORRUPT',
    `The database ${location} has schema version ${version}, made by a newer cards; this one knows version ${SCHEMA_VERSION}. Upgrade cards to use it.`,
    { hint: 'The database was left untouched.' },
  );
}

/** Brings the schema up to SCHEMA_VERSION; refuses a newer one without writing anything. */
export async function migrate(pool: pg.Pool, location: string): Promise<MigrationResult> {
  const client = withErrorListener(await pool.connect());
  try {
    await ensureMigrationsTable(client);
    const from = await appliedVersion(client);
    if (from > SCHEMA_VERSION) throw refuseNewer(from, location);
    for (const migration of MIGRATIONS) {
      if (migration.id <= (await appliedVersion(client))) continue;
      try {
        await client.query('BEGIN');
        await client.query(RECORD_MIGRATION, [migration.id, migration.name]);
        for (const statement of migration.statements) await client.query(statement);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        // Another server applied it first (its row is there now): go on with the next one.
        if (isUniqueViolation(err) || isRetryable(err)) continue;
        throw err;
      }
    }
    const to = await appliedVersion(client);
    if (to > SCHEMA_VERSION) throw refuseNewer(to, location);
    if (to < SCHEMA_VERSION)
      throw new CardsError(
        'STORE_UNAVAILABLE',
        `The database ${location} could not be migrated to schema version ${SCHEMA_VERSION} (it is at ${to}).`,
      );
    return { from, to };
  } finally {
    client.release();
  }
}
