/**
 * A Keyknox address (v1: app and identity; v2: app, owner, root, path, key) holds at most
 * 2048 bytes of UTF-8 together, on every engine, against a real
 * `cards serve --compat virgil` on port 0. Each part was bounded alone (1,024 bytes; the owner
 * and the app, from the token, not at all), and PostgreSQL's B-tree index takes at most 2,704
 * bytes a row: a push whose root, path and key held 1,000 bytes each was stored by the memory
 * and JSON engines and answered 503 STORE_UNAVAILABLE on PostgreSQL ("index row size 3048
 * exceeds btree version 4 maximum 2704"), as was a v1 push from a token whose identity held
 * 3,000 bytes; a JSON registry holding such entries could not be moved to PostgreSQL.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { LIMITS } from '../../src/core/limits.js';
import { E3KIT_APP } from '../helpers/e3kit-call.js';
import {
  EVERY_ENGINE,
  exportLines,
  startInProcess,
  type InProcessServer,
} from '../helpers/in-process-server.js';
import { removeTempDirs } from '../helpers/server.js';

after(removeTempDirs);

const ARGS = ['--compat', 'virgil', '--quiet', '--no-log'];
const MAX = LIMITS.keyknoxAddressMax;
const b64 = (text: string): string => Buffer.from(text).toString('base64');

/**
 * `n` characters of base64 text from a seed: as incompressible as random text (PostgreSQL
 * compresses a long index value that compresses, which would hide the bound), yet the same at
 * every run.
 */
function text(seed: string, n: number): string {
  let out = '';
  for (let i = 0; out.length < n; i++)
    out += createHash('sha256')
      .update(`${seed}/${String(i)}`)
      .digest('base64')
      .slice(0, 43);
  return out.slice(0, n);
}

interface Answer {
  readonly status: number;
  readonly code: number | undefined;
}

async function call(
  server: InProcessServer,
  identity: string,
  method: string,
  path: string,
  body: unknown,
): Promise<Answer> {
  const token = await server.token(identity, { format: 'stock', appId: E3KIT_APP });
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Virgil ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as { code?: number };
  return { status: response.status, code: answer.code };
}

/** A v2 entry of `owner` whose address is `total` bytes long (root and path share the rest). */
function entryOf(owner: string, total: number, seed: string) {
  const rest = total - E3KIT_APP.length - owner.length - 'k'.length;
  const root = text(`${seed}/root`, Math.ceil(rest / 2));
  return {
    root,
    path: text(`${seed}/path`, rest - root.length),
    key: 'k',
    identities: ['bob'],
    meta: b64('m'),
    value: b64('v'),
  };
}

for (const [engine, place] of EVERY_ENGINE) {
  describe(`Keyknox address size on the ${engine} engine`, () => {
    test('an address of the bound is stored; one byte more is 400 50002 and stores nothing', async (t) => {
      const store = await place();
      const server = await startInProcess({ args: ARGS, ...(store && { store }) });
      t.after(() => server.dispose());

      // v2: root and path of about a thousand bytes each, each within its own bound.
      const over = entryOf('alice', MAX + 1, 'over');
      assert.ok(over.root.length <= LIMITS.identityMax && over.path.length <= LIMITS.identityMax);
      assert.deepEqual(await call(server, 'alice', 'POST', '/keyknox/v2/push', over), {
        status: 400,
        code: 50002,
      });
      // v1: the address is the token's app and identity.
      const longOwner = text('owner', MAX + 1 - E3KIT_APP.length);
      assert.deepEqual(
        await call(server, longOwner, 'PUT', '/keyknox/v1', { meta: b64('m'), value: b64('v') }),
        { status: 400, code: 50002 },
      );
      assert.deepEqual(
        await call(server, 'carol', 'POST', '/keyknox/v2/push', {
          ...entryOf('carol', 64, 'short'),
          root: 'e3kit',
        }).then((a) => a.status),
        200,
      );
      const before = await exportLines(server);
      assert.equal(before.length, 1);

      const atBound = entryOf('alice', MAX, 'bound');
      assert.equal((await call(server, 'alice', 'POST', '/keyknox/v2/push', atBound)).status, 200);
      const pulled = await call(server, 'bob', 'POST', '/keyknox/v2/pull', {
        root: atBound.root,
        path: atBound.path,
        key: atBound.key,
        identity: 'alice',
      });
      assert.equal(pulled.status, 200);
      const owner = text('owner', MAX - E3KIT_APP.length);
      assert.equal(
        (await call(server, owner, 'PUT', '/keyknox/v1', { meta: b64('m'), value: b64('v') }))
          .status,
        200,
      );
      assert.equal((await exportLines(server)).length, 3);
    });

    test("an import's Keyknox line whose address is longer is IMPORT_INVALID; nothing is stored", async (t) => {
      const store = await place();
      const server = await startInProcess({ args: ARGS, ...(store && { store }) });
      t.after(() => server.dispose());
      const entry = entryOf('alice', MAX, 'import');
      assert.equal((await call(server, 'alice', 'POST', '/keyknox/v2/push', entry)).status, 200);
      const v1Owner = text('v1', MAX - E3KIT_APP.length);
      assert.equal(
        (await call(server, v1Owner, 'PUT', '/keyknox/v1', { meta: b64('m'), value: b64('v') }))
          .status,
        200,
      );
      const before = await exportLines(server);
      const v2Line = before.find((line) => line.startsWith('{"keyknox2"'))!;
      const v1Line = before.find((line) => line.startsWith('{"keyknox1"'))!;
      for (const hostile of [
        v2Line.replace('"key":"k"', '"key":"kx"'),
        v1Line.replace(`"identity":"${v1Owner}"`, `"identity":"${v1Owner}x"`),
      ]) {
        const response = await fetch(`${server.url}/_cards/import?append=true`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-ndjson' },
          body: `${hostile}\n`,
        });
        const body = (await response.json()) as { message?: string };
        assert.equal(response.status, 400, JSON.stringify(body));
        assert.match(String(body.message), /line 1 .*at most 2048 bytes/);
        assert.deepEqual(await exportLines(server), before);
      }
    });
  });
}
