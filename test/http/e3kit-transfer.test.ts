/**
 * A registry moved between engines keeps e3kit's backups: GET /_cards/export of a server on a
 * JSON store, POST /_cards/import into a fresh server on PostgreSQL (and back), and the same
 * Keyknox pull answers the same bytes and hash; a reader keeps its own copy. A dump with a bad
 * Keyknox line is refused (IMPORT_INVALID) and imports nothing: no entry, no card.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { freshStoreUrl } from '../helpers/postgres.js';
import { removeTempDirs, type Served } from '../helpers/server.js';
import { startInProcess } from '../helpers/in-process-server.js';
import { makeCard } from './card-kit.js';

after(removeTempDirs);

const APP = 'e3kit-transfer-app';
const ARGS = ['--compat', 'virgil', '--quiet', '--no-log'];
const b64 = (text: string): string => Buffer.from(text).toString('base64');

async function call(
  server: Served,
  path: string,
  identity: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown>; hash: string | null }> {
  const token = await server.token(identity, { format: 'stock', appId: APP });
  const response = await fetch(`${server.url}${path}`, {
    method: path === '/keyknox/v1' ? (body === undefined ? 'GET' : 'PUT') : 'POST',
    headers: {
      authorization: `Virgil ${token}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
    hash: response.headers.get('virgil-keyknox-hash'),
  };
}

const exported = async (server: Served): Promise<string> => {
  const response = await fetch(`${server.url}/_cards/export`);
  assert.equal(response.status, 200);
  return response.text();
};

const imported = (server: Served, dump: string) =>
  fetch(`${server.url}/_cards/import`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-ndjson' },
    body: dump,
  });

const cardCount = async (server: Served): Promise<number> =>
  ((await (await fetch(`${server.url}/_cards/info`)).json()) as { cards: number }).cards;

/** A card posted as a stock client posts it. */
async function postCard(server: Served, identity: string): Promise<void> {
  const posted = await fetch(`${server.url}/card/v5`, {
    method: 'POST',
    headers: {
      authorization: `Virgil ${await server.token(identity, { format: 'stock', appId: APP })}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify(makeCard(identity).raw),
  });
  assert.ok(posted.ok, await posted.text());
}

const PULL = { root: 'group-sessions', path: 'chat', key: '1' };

/** What e3kit pulls: alice's v1 backup, her group ticket, and bob's copy of it. */
async function pulls(server: Served) {
  return {
    v1: await call(server, '/keyknox/v1', 'alice'),
    owner: await call(server, '/keyknox/v2/pull', 'alice', PULL),
    reader: await call(server, '/keyknox/v2/pull', 'bob', { ...PULL, identity: 'alice' }),
  };
}

describe('export and import carry Keyknox (JSON → PostgreSQL → JSON)', () => {
  test('the same pull gives the same bytes and hash after each move', async (t) => {
    const source = await startInProcess({ args: ARGS });
    t.after(() => source.dispose());
    await postCard(source, 'alice');
    const backup = await call(source, '/keyknox/v1', 'alice', {
      meta: b64('meta'),
      value: b64('encrypted private key'),
    });
    assert.equal(backup.status, 200);
    // A ticket for bob, then a new copy for carol: bob keeps his (Keyknox v2 rule 5).
    const first = await call(source, '/keyknox/v2/push', 'alice', {
      ...PULL,
      identities: ['alice', 'bob'],
      meta: b64('m1'),
      value: b64('ticket for bob'),
    });
    await call(
      source,
      '/keyknox/v2/push',
      'alice',
      { ...PULL, identities: ['carol'], meta: b64('m2'), value: b64('ticket for carol') },
      { 'virgil-keyknox-previous-hash': String(first.hash) },
    );
    const before = await pulls(source);
    assert.equal(before.reader.body.value, b64('ticket for bob'));

    const dump = await exported(source);
    const lines = dump.trimEnd().split('\n');
    assert.deepEqual(
      lines.map((line) => Object.keys(JSON.parse(line) as object)[0]),
      ['keyknox1', 'keyknox2', 'id'],
      'Keyknox lines first, then the cards',
    );
    const postgres = await startInProcess({ args: ARGS, store: await freshStoreUrl() });
    t.after(() => postgres.dispose());
    const into = await imported(postgres, dump);
    assert.equal(into.status, 200, await into.clone().text());
    assert.deepEqual(((await into.json()) as { keyknox: unknown }).keyknox, {
      imported: 2,
      skipped: 0,
    });
    assert.deepEqual(await pulls(postgres), before, 'on PostgreSQL');
    assert.equal(await cardCount(postgres), 1);
    // The hash a client holds is still current: its next push lands.
    const next = await call(
      postgres,
      '/keyknox/v1',
      'alice',
      { meta: b64('meta'), value: b64('changed password') },
      { 'virgil-keyknox-previous-hash': String(before.v1.hash) },
    );
    assert.equal(next.status, 200, JSON.stringify(next.body));
    assert.equal(next.body.version, '2.0');

    const back = await startInProcess({ args: ARGS });
    t.after(() => back.dispose());
    const again = await exported(postgres);
    assert.equal((await imported(back, again)).status, 200);
    assert.deepEqual(await pulls(back), await pulls(postgres), 'back on JSON');
    assert.equal(await exported(back), again, 'the same dump from either engine');
    // Imported again with append: everything is there identically, nothing stored twice.
    const rerun = await fetch(`${back.url}/_cards/import?append=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: again,
    });
    assert.equal(rerun.status, 200);
    assert.deepEqual(((await rerun.json()) as { keyknox: unknown }).keyknox, {
      imported: 0,
      skipped: 2,
    });
  });

  test('a bad Keyknox line refuses the dump: no entry and no card imported', async (t) => {
    const source = await startInProcess({ args: ARGS });
    t.after(() => source.dispose());
    await call(source, '/keyknox/v1', 'alice', { meta: b64('m'), value: b64('v') });
    await call(source, '/keyknox/v2/push', 'alice', {
      ...PULL,
      identities: ['bob'],
      meta: b64('m'),
      value: b64('v'),
    });
    await postCard(source, 'dave');
    const good = (await exported(source)).trimEnd().split('\n');
    assert.equal(good.length, 3);
    const [v1, v2, cardLine] = good as [string, string, string];
    const broken = [
      v2.replace(/"hash":"[^"]*"/, '"hash":7'),
      v2.replace(/"copy":0/, '"copy":5'),
      v2.replace(/"value":"[^"]*"/, '"value":"not base64!"'),
      JSON.stringify({ keyknox2del: { app: APP, owner: 'alice', root: 'r', path: 'p', key: 'k' } }),
      '{"keyknox1": {',
    ];
    for (const bad of broken) {
      const target = await startInProcess({ args: ARGS });
      t.after(() => target.dispose());
      const refused = await imported(target, `${v1}\n${bad}\n${cardLine}\n`);
      const answer = (await refused.json()) as { code: number; message: string };
      assert.equal(refused.status, 400, `${bad}: ${JSON.stringify(answer)}`);
      assert.equal(answer.code, 30102, bad);
      assert.match(answer.message, /line 2/);
      const after = await pulls(target);
      assert.equal(after.v1.body.value, '', 'the good v1 line before it is not stored');
      assert.equal(after.owner.body.value, '');
      assert.equal(await cardCount(target), 0);
    }
  });
});
