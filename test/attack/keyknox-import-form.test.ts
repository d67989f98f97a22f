/**
 * An import's Keyknox line holds only what a push could leave (registry/keyknox-transfer.ts),
 * on the JSON engine and on PostgreSQL, against a real `cards serve --compat virgil` on port 0.
 * The lines were checked for their types and text alone, so `POST /_cards/import` stored:
 * - a hash holding a line break or a character above U+00FF, after which every pull of the blob
 *   was 500 INTERNAL (the hash is sent in the `Virgil-Keyknox-Hash` header); an empty hash,
 *   which no stock client ever sends back; a hash of 100,000 characters, a header no client
 *   reads; a hash holding U+0000, stored by the JSON engine and 500 on PostgreSQL;
 * - a version of 3,000,000,000 (JSON; PostgreSQL's integer column refused it, 500), and a
 *   revision of 2^53 - 1: one push later the JSON engine wrote a revision it cannot read back,
 *   and the next start dropped that acknowledged push as a torn write;
 * - a date after year 275760 (JSON; 500 on PostgreSQL), after which the admin listing of
 *   Keyknox entries was 500 for everyone;
 * - an empty identity, owner, root, path, key or reader, or a reader twice, none of which a
 *   route ever stores.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { LIMITS } from '../../src/core/limits.js';
import { E3KIT_APP } from '../helpers/e3kit-call.js';
import { exportLines, startInProcess, type InProcessServer } from '../helpers/in-process-server.js';
import { freshStoreUrl } from '../helpers/postgres.js';
import { removeTempDirs } from '../helpers/server.js';

after(removeTempDirs);

const ARGS = ['--compat', 'virgil', '--quiet', '--no-log'];
const b64 = (text: string): string => Buffer.from(text).toString('base64');
const HASH = b64('a hash of a push');

const v1 = (fields: Record<string, unknown>) => ({
  keyknox1: {
    app: E3KIT_APP,
    identity: 'alice',
    meta: b64('m'),
    value: b64('v'),
    version: 2,
    hash: HASH,
    revision: 3,
    created: 1_700_000_000_000,
    updated: 1_700_000_000_001,
    ...fields,
  },
});

const v2 = (fields: Record<string, unknown>) => ({
  keyknox2: {
    app: E3KIT_APP,
    owner: 'alice',
    root: 'e3kit',
    path: 'backup',
    key: 'laptop',
    copies: [{ meta: b64('m'), value: b64('v') }],
    readers: [{ identity: 'bob', copy: 0 }],
    hash: HASH,
    revision: 1,
    ...fields,
  },
});

const HOSTILE: [string, unknown][] = [
  ['a hash with a line break', v1({ hash: 'aGFz\r\nSet-Cookie: a=b' })],
  ['a hash above U+00FF', v1({ hash: '\u20ac' })],
  ['a hash holding U+0000', v1({ hash: 'aGFz\u0000' })],
  ['an empty hash', v1({ hash: '' })],
  ['a hash of 100,000 characters', v1({ hash: 'A'.repeat(100_000) })],
  ['an entry hash that is not base64', v2({ hash: 'not base64!' })],
  ['a version past PostgreSQL integer', v1({ version: 3_000_000_000 })],
  ['a version above the bound', v1({ version: LIMITS.keyknoxCounterMax + 1 })],
  [
    'a blob larger than a push holds',
    v1({ value: Buffer.alloc(LIMITS.keyknoxPushMax + 1).toString('base64') }),
  ],
  ['a revision one push from unsafe', v1({ revision: Number.MAX_SAFE_INTEGER })],
  ['an entry revision above the bound', v2({ revision: LIMITS.keyknoxCounterMax + 1 })],
  ['a date after year 9999', v1({ created: 9e15 })],
  ['an update date after year 9999', v2({ updated: LIMITS.keyknoxDateMax + 1 })],
  ['an empty identity', v1({ identity: '' })],
  ['an empty owner', v2({ owner: '' })],
  ['an empty root', v2({ root: '' })],
  ['an empty key', v2({ key: '' })],
  ['a root over 1,024 bytes', v2({ root: 'r'.repeat(LIMITS.identityMax + 1) })],
  ['an empty reader', v2({ readers: [{ identity: '', copy: 0 }] })],
  [
    'a reader twice',
    v2({
      readers: [
        { identity: 'bob', copy: 0 },
        { identity: 'bob', copy: 0 },
      ],
    }),
  ],
];

async function importLine(server: InProcessServer, line: unknown) {
  const response = await fetch(`${server.url}/_cards/import?append=true`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-ndjson' },
    body: `${JSON.stringify(line)}\n`,
  });
  return {
    status: response.status,
    body: (await response.json()) as { code?: number | string; message?: string },
  };
}

async function pullV1(server: InProcessServer, identity: string) {
  const token = await server.token(identity, { format: 'stock', appId: E3KIT_APP });
  const response = await fetch(`${server.url}/keyknox/v1`, {
    headers: { authorization: `Virgil ${token}` },
  });
  return {
    status: response.status,
    hash: response.headers.get('virgil-keyknox-hash'),
    body: (await response.json()) as { value?: string; version?: string },
  };
}

const ENGINES: [string, () => Promise<string | undefined>][] = [
  ['JSON file', async () => undefined],
  ['PostgreSQL', () => freshStoreUrl()],
];

for (const [engine, place] of ENGINES) {
  describe(`Keyknox import lines on the ${engine} engine`, () => {
    test('a line no push could leave is IMPORT_INVALID naming it; nothing is stored', async (t) => {
      const store = await place();
      const server = await startInProcess({ args: ARGS, ...(store && { store }) });
      t.after(() => server.dispose());
      const before = await exportLines(server);
      for (const [what, line] of HOSTILE) {
        const answer = await importLine(server, line);
        assert.deepEqual(
          [answer.status, answer.body.code],
          [400, 30102],
          `${what}: ${JSON.stringify(answer.body).slice(0, 300)}`,
        );
        assert.match(String(answer.body.message), /^Import line 1 /, what);
        assert.deepEqual(await exportLines(server), before, what);
      }
      const listing = await fetch(`${server.url}/_cards/keyknox`);
      assert.equal(listing.status, 200);
    });

    test('a line at every bound imports, answers, takes a push and survives a restart', async (t) => {
      const store = await place();
      const server = await startInProcess({ args: ARGS, ...(store && { store }) });
      const restarted: { server?: InProcessServer } = {};
      // The restarted server first: the first one's dispose removes the folder both use.
      t.after(async () => {
        await restarted.server?.dispose();
        await server.dispose();
      });
      const edge = v1({
        version: LIMITS.keyknoxCounterMax,
        revision: LIMITS.keyknoxCounterMax,
        hash: Buffer.alloc(64, 7).toString('base64'),
        created: 0,
        updated: LIMITS.keyknoxDateMax,
      });
      const entry = v2({ revision: LIMITS.keyknoxCounterMax, updated: LIMITS.keyknoxDateMax });
      for (const line of [edge, entry]) {
        const answer = await importLine(server, line);
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
      }
      const pulled = await pullV1(server, 'alice');
      assert.equal(pulled.status, 200);
      assert.equal(pulled.hash, edge.keyknox1.hash);
      assert.equal(pulled.body.version, `${String(LIMITS.keyknoxCounterMax)}.0`);
      const listing = await fetch(`${server.url}/_cards/keyknox`);
      assert.equal(listing.status, 200);
      const token = await server.token('alice', { format: 'stock', appId: E3KIT_APP });
      const pushed = await fetch(`${server.url}/keyknox/v1`, {
        method: 'PUT',
        headers: {
          authorization: `Virgil ${token}`,
          'content-type': 'application/json',
          'virgil-keyknox-previous-hash': edge.keyknox1.hash,
        },
        body: JSON.stringify({ meta: b64('m2'), value: b64('pushed') }),
      });
      assert.equal(pushed.status, 200);
      await server.stop();
      const again = await startInProcess({ args: ARGS, dir: server.dir, ...(store && { store }) });
      restarted.server = again;
      const after = await pullV1(again, 'alice');
      assert.equal(after.body.value, b64('pushed'));
      assert.equal(after.body.version, `${String(LIMITS.keyknoxCounterMax + 1)}.0`);
      assert.doesNotMatch(again.stderr(), /torn write/);
    });
  });
}
