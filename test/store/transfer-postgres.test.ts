/**
 * `cards export` / `cards import` / `cards db migrate` and start-up refusals against a real
 * PostgreSQL: the round trip JSON → PostgreSQL → JSON gives the same store file byte
 * for byte; import refuses a non-empty store without --append, a card whose id or self
 * signature does not verify; a newer schema is refused untouched; bad configuration stops
 * `cards serve` with one line and exit status 9.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { generatePrivateKey } from '../../src/crypto/keys.js';
import { createRegistry } from '../../src/registry/registry.js';
import { JsonStore } from '../../src/store/json/json-store.js';
import { sandbox } from '../cli/harness.js';
import { runServeToExit } from '../helpers/server.js';
import { freshStoreUrl, sql, testPostgres } from '../helpers/postgres.js';
import { makeCard } from '../http/card-kit.js';
import { SCHEMA_VERSION } from '../../src/store/postgres/sql.js';
import { openEngine } from '../../src/server/open-engine.js';
import { utf8 } from '../../src/core/encoding.js';

const box = sandbox();
after(() => box.cleanup());

/** A JSON store with chains, a replacement and a revocation, made through the registry. */
async function makeJsonStore(path: string, n: number): Promise<string[]> {
  const store = await JsonStore.open({ path });
  const registry = createRegistry({ store, serviceKey: generatePrivateKey(), signer: 'service' });
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const identity = `user-${i % 5}`;
    const card = makeCard(identity);
    ids.push((await registry.createCard(card.raw, identity)).id);
    if (i % 4 === 0) {
      const next = makeCard(identity, { previousCardId: card.id });
      ids.push((await registry.createCard(next.raw, identity)).id);
      if (i % 8 === 0) ids.push((await registry.revokeCardById(next.id, identity)).id);
    }
  }
  await store.close();
  return ids;
}

describe('export and import between JSON and PostgreSQL', () => {
  test('JSON → PostgreSQL → JSON is byte-identical; export streams in insertion order', async () => {
    const source = join(box.dir, 'source.json');
    const ids = await makeJsonStore(source, 40);
    const url = await freshStoreUrl();
    const dump = await box.cards(['export', '--store', source]);
    assert.equal(dump.status, 0, dump.stderr);
    const lines = dump.stdout.trimEnd().split('\n');
    assert.deepEqual(
      lines.map((line) => (JSON.parse(line) as { id: string }).id),
      ids,
    );
    const imported = await box.cards(['import', '--store', url], { input: dump.stdout });
    assert.equal(imported.status, 0, imported.stderr);
    assert.match(imported.stderr, new RegExp(`imported ${ids.length} cards into PostgreSQL`));
    assert.doesNotMatch(imported.stderr, /cards-test-password/, 'password redacted');
    const again = await box.cards(['export', '--store', url]);
    assert.equal(again.status, 0, again.stderr);
    assert.equal(again.stdout, dump.stdout, 'PostgreSQL export is byte-identical');
    const target = join(box.dir, 'target.json');
    const back = await box.cards(['import', '--store', target], { input: again.stdout });
    assert.equal(back.status, 0, back.stderr);
    assert.equal(readFileSync(target, 'utf8'), readFileSync(source, 'utf8'), 'same store file');

    // A non-empty store: refused without --append; with it, each card checked: one stored
    // already, identically, is skipped and counted; one of the same id that differs (another
    // service signature) is refused (40027).
    const refused = await box.cards(['import', '--store', url], { input: dump.stdout });
    assert.equal(refused.status, 4, refused.stderr);
    assert.match(refused.stderr, /STORE_NOT_EMPTY/);
    const twice = await box.cards(['import', '--store', url, '--append'], {
      input: lines[0] as string,
    });
    assert.equal(twice.status, 0, twice.stderr);
    assert.match(twice.stderr, /imported 0 cards into PostgreSQL .*, skipped 1 stored already/);
    const first = JSON.parse(lines[0] as string) as { signatures: { signature: string }[] };
    const service = first.signatures[first.signatures.length - 1]!;
    service.signature = Buffer.alloc(64, 5).toString('base64');
    const differs = await box.cards(['import', '--store', url, '--append'], {
      input: JSON.stringify(first),
    });
    assert.equal(differs.status, 4, differs.stderr);
    assert.match(differs.stderr, /SNAPSHOT_NOT_UNIQUE/);
    const more = join(box.dir, 'more.json');
    await makeJsonStore(more, 3);
    const extra = await box.cards(['export', '--store', more]);
    const appended = await box.cards(['import', '--store', url, '--append'], {
      input: extra.stdout,
    });
    assert.equal(appended.status, 0, appended.stderr);
    const rows = await sql<{ n: string }>(url, 'SELECT count(*) AS n FROM cards');
    assert.equal(Number(rows[0]?.n), ids.length + extra.stdout.trimEnd().split('\n').length);
  });

  test('cards export/import --store carry Keyknox entries: JSON → PostgreSQL → JSON', async () => {
    const source = join(box.dir, 'keyknox.json');
    await makeJsonStore(source, 2);
    const engine = await openEngine(source);
    const blob = {
      meta: utf8('m'),
      value: utf8('backup'),
      version: 3,
      hash: 'aGFzaA==',
      revision: 4,
    };
    assert.ok(await engine.keyknox.v1Put({ app: 'app', identity: 'alice' }, blob, 0));
    const entry = {
      address: { app: 'app', owner: 'alice', root: 'e3kit', path: 'backup', key: 'laptop' },
      copies: [{ meta: utf8('m'), value: utf8('key') }],
      readers: [{ identity: 'alice', copy: 0 }],
      hash: 'aGFzaDI=',
      revision: 2,
    };
    assert.ok(await engine.keyknox.v2Put(entry, 0));
    await engine.close();
    const dump = await box.cards(['export', '--store', source]);
    assert.equal(dump.status, 0, dump.stderr);
    assert.match(dump.stdout, /^\{"keyknox1":.*\n\{"keyknox2":/);
    const url = await freshStoreUrl();
    const into = await box.cards(['import', '--store', url], { input: dump.stdout });
    assert.equal(into.status, 0, into.stderr);
    const again = await box.cards(['export', '--store', url]);
    assert.equal(again.stdout, dump.stdout, 'the same dump from PostgreSQL');
    const target = join(box.dir, 'keyknox-back.json');
    assert.equal(
      (await box.cards(['import', '--store', target], { input: again.stdout })).status,
      0,
    );
    const back = await openEngine(target);
    try {
      assert.deepEqual(await back.keyknox.v1Get({ app: 'app', identity: 'alice' }), blob);
      assert.deepEqual(await back.keyknox.v2Get(entry.address), entry);
    } finally {
      await back.close();
    }
    // A bad Keyknox line: refused with its code, nothing stored.
    const bad = dump.stdout.replace('"revision":4', '"revision":-1');
    const empty = await freshStoreUrl();
    const refused = await box.cards(['import', '--store', empty], { input: bad });
    assert.equal(refused.status, 4, refused.stderr);
    assert.match(refused.stderr, /IMPORT_INVALID/);
    const rows = await sql<{ n: string }>(
      empty,
      'SELECT (SELECT count(*) FROM cards) + (SELECT count(*) FROM cards_keyknox_v1) + (SELECT count(*) FROM cards_keyknox_v2) AS n',
    );
    assert.equal(Number(rows[0]?.n), 0);
  });

  test('import verifies each card: a wrong id or a bad self signature stores nothing', async () => {
    const source = join(box.dir, 'verify.json');
    await makeJsonStore(source, 3);
    const dump = (await box.cards(['export', '--store', source])).stdout;
    const [first, ...rest] = dump.trimEnd().split('\n') as [string, ...string[]];
    const record = JSON.parse(first) as { id: string; signatures: { signature: string }[] };
    const badId = JSON.stringify({ ...record, id: 'a'.repeat(64) });
    const sig = record.signatures[0] as { signature: string };
    const flipped = `${sig.signature[0] === 'A' ? 'B' : 'A'}${sig.signature.slice(1)}`;
    const badSig = first.replace(sig.signature, flipped);
    for (const bad of [badId, badSig]) {
      const url = await freshStoreUrl();
      const result = await box.cards(['import', '--store', url], {
        input: [bad, ...rest].join('\n'),
      });
      assert.equal(result.status, 5, result.stderr);
      assert.match(result.stderr, /VERIFICATION_FAILED.*line 1/);
      const rows = await sql<{ n: string }>(url, 'SELECT count(*) AS n FROM cards');
      assert.equal(Number(rows[0]?.n), 0);
    }
  });
});

describe('schema and configuration', () => {
  test('db migrate; a newer schema is refused untouched', async () => {
    const url = await freshStoreUrl();
    const first = await box.cards(['db', 'migrate', '--store', url]);
    assert.equal(first.status, 0, first.stderr);
    assert.match(
      first.stdout,
      new RegExp(`schema migrated from version 0 to ${SCHEMA_VERSION}\\b`),
    );
    const second = await box.cards(['db', 'migrate', '--store', url]);
    assert.match(second.stdout, new RegExp(`schema version ${SCHEMA_VERSION}: up to date`));
    await sql(
      url,
      `INSERT INTO cards_migrations (id, name) VALUES (${SCHEMA_VERSION + 1}, 'from the future')`,
    );
    const tables = async (): Promise<string> =>
      JSON.stringify(
        await sql(
          url,
          `SELECT table_name, column_name FROM information_schema.columns
           WHERE table_schema = current_schema() ORDER BY 1, 2`,
        ),
      );
    const before = await tables();
    const refused = await runServeToExit(['--port', '0', '--store', url]);
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(
      refused.stderr,
      new RegExp(`STORE_CORRUPT.*schema version ${SCHEMA_VERSION + 1}.*newer cards`),
    );
    assert.equal(await tables(), before, 'untouched');
  });

  test('bad configuration stops start-up with one line and exit status 9', async () => {
    const pg = await testPostgres();
    const wrongPassword = new URL(pg.adminUrl);
    wrongPassword.password = 'wrong';
    const cases: [string, string, RegExp][] = [
      [wrongPassword.toString(), 'STORE_AUTH_FAILED', /refused the user "postgres"/],
      [pg.urlOf('no_such_database'), 'STORE_DATABASE_UNKNOWN', /no database "no_such_database"/],
      ['postgres://cards:pw@127.0.0.1:1/cards', 'STORE_UNREACHABLE', /Cannot reach PostgreSQL/],
      [
        'mysql://cards:pw@127.0.0.1/cards',
        'STORE_URL_INVALID',
        /not one cards can open.*a PostgreSQL URL/,
      ],
    ];
    for (const [url, code, message] of cases) {
      const result = await runServeToExit(['--port', '0', '--store', url], { process: true });
      assert.equal(result.code, 9, `${code}: ${result.stderr}`);
      assert.match(result.stderr, new RegExp(code));
      assert.match(result.stderr, message);
      assert.doesNotMatch(result.stderr, /badpass-xyz|:pw@/, 'no password in the message');
      assert.equal(result.stderr.split('\n').filter((l) => l.startsWith('error')).length, 1);
    }
  });
});
