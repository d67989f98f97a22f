/**
 * Migration 6 of the PostgreSQL engine (src/store/postgres/sql.ts) over Keyknox rows written at
 * schema 5: a blob and an entry keep their bytes and the `updated_at` their last write set, have
 * no creation date, and are written on with dates.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { utf8 } from '../../src/core/encoding.js';
import { KeyknoxV1 } from '../../src/registry/keyknox-v1.js';
import { openEngine } from '../../src/server/open-engine.js';
import { CREATE_MIGRATIONS, MIGRATIONS, RECORD_MIGRATION } from '../../src/store/postgres/sql.js';
import { freshStoreUrl, sql } from '../helpers/postgres.js';

test('Keyknox rows of schema 5 keep their bytes and last write date through migration 6', async () => {
  const url = await freshStoreUrl();
  await sql(url, CREATE_MIGRATIONS);
  for (const migration of MIGRATIONS.filter((m) => m.id <= 5)) {
    await sql(url, RECORD_MIGRATION, [migration.id, migration.name]);
    for (const statement of migration.statements) await sql(url, statement);
  }
  const written = '2026-01-02T03:04:05.678Z';
  await sql(
    url,
    `INSERT INTO cards_keyknox_v1 (app, identity, meta, value, version, hash, revision, updated_at)
      VALUES ('app', 'alice', $1, $2, 2, 'h', 2, $3)`,
    [Buffer.from('m'), Buffer.from('v'), written],
  );
  await sql(
    url,
    `INSERT INTO cards_keyknox_v2 (app, owner, root, path, key, copies, readers, hash, revision)
      VALUES ('app', 'alice', 'r', 'p', 'k', '[{"meta":"bQ==","value":"dg=="}]', '[]', 'h', 1)`,
  );
  const engine = await openEngine(url, { poolSize: 2 });
  try {
    const alice = { app: 'app', identity: 'alice' };
    assert.deepEqual(await engine.keyknox.v1Get(alice), {
      meta: utf8('m'),
      value: utf8('v'),
      version: 2,
      hash: 'h',
      revision: 2,
      updated: Date.parse(written),
    });
    const entry = await engine.keyknox.v2Get({
      app: 'app',
      owner: 'alice',
      root: 'r',
      path: 'p',
      key: 'k',
    });
    assert.equal(entry?.created, undefined);
    assert.equal(typeof entry?.updated, 'number', 'the default of schema 5 kept');
    await new KeyknoxV1(engine.keyknox, () => 1_800_000_000_000).push(
      alice,
      entry!.copies[0]!,
      'h',
    );
    const pushed = await engine.keyknox.v1Get(alice);
    assert.deepEqual(
      [pushed?.created, pushed?.updated, pushed?.version],
      [undefined, 1_800_000_000_000, 3],
    );
  } finally {
    await engine.close();
  }
});
