/**
 * GET /_cards/keyknox through fastify's inject, every response checked against the OpenAPI
 * document (contract.ts): Keyknox v1 blobs and v2 entries pushed through e3kit's own routes are
 * listed page after page with their metadata (owner, place, readers, size, wire version and
 * hash, dates) and never their content; the admin token is needed as on every admin route; a
 * bad query string is QUERY_INVALID saying what the parameter must be.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { codeForWire, WIRE_ERRORS, type WireCode } from '../../src/core/errors.js';
import { PROFILES } from '../../src/core/profile.js';
import { generatePrivateKey } from '../../src/crypto/keys.js';
import { mintToken } from '../../src/crypto/tokens.js';
import { createApp } from '../../src/http/app.js';
import { createAuthenticator } from '../../src/http/auth.js';
import type { KeyknoxRow } from '../../src/core/admin-rows.js';
import { createRegistry } from '../../src/registry/registry.js';
import { MemoryStore } from '../../src/store/memory/memory-store.js';
import { checkContract } from '../helpers/contract.js';
import { e3kitDeps } from './e3kit-kit.js';

const appKey = generatePrivateKey();
const serviceKey = generatePrivateKey();
const TOKEN = 'cards_admin_0123456789abcdef0123456789';
const b64 = (text: string): string => Buffer.from(text).toString('base64');
const HASH = 'service-keyknox-hash';

async function harness() {
  const profile = PROFILES.service;
  const registry = createRegistry({ store: new MemoryStore(), serviceKey, signer: profile.signer });
  const e3kit = await e3kitDeps();
  const app = await createApp({
    registry,
    profile,
    auth: createAuthenticator({ keys: [{ key: appKey.publicKey }], scheme: profile.scheme }),
    version: 'test',
    admin: { token: TOKEN, loopbackOpen: false, serviceKey: serviceKey.publicKey.toBase64() },
    e3kit,
    keyknox: e3kit.keyknox,
  });
  const send = async (
    method: 'GET' | 'PUT' | 'POST',
    url: string,
    authorization: string,
    body?: unknown,
  ): Promise<LightMyRequestResponse> => {
    const response = await app.inject({
      method,
      url,
      headers: {
        ...(authorization !== '' && { authorization }),
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      ...(body !== undefined && { payload: JSON.stringify(body) }),
    });
    checkContract('service', {
      method,
      url,
      status: response.statusCode,
      headers: response.headers,
      body: response.body,
    });
    return response;
  };
  /** A Keyknox request as a client sends it, with a card token of `identity`. */
  const keyknox = async (
    method: 'GET' | 'PUT' | 'POST',
    path: string,
    identity: string,
    body?: unknown,
  ) => {
    const token = await mintToken({ key: appKey, identity, now: Date.now(), ttlSeconds: 600 });
    const response = await send(method, path, `Service ${token}`, body);
    assert.equal(response.statusCode, 200, response.body);
    return { body: response.json<Record<string, unknown>>(), hash: String(response.headers[HASH]) };
  };
  const admin = (url: string, authorization = `Bearer ${TOKEN}`) => send('GET', url, authorization);
  return { keyknox, admin };
}

const codeOf = (response: LightMyRequestResponse): WireCode | number => {
  if (response.statusCode < 400) return response.statusCode;
  const code = codeForWire(response.json<{ code: string }>().code) as WireCode;
  assert.equal(WIRE_ERRORS[code].status, response.statusCode);
  return code;
};

type KeyknoxPage = { keyknox: KeyknoxRow[]; next_cursor: string | null };

describe('GET /_cards/keyknox', () => {
  test('blobs then entries pushed through the real routes, page after page, metadata only', async () => {
    const h = await harness();
    const empty = await h.admin('/_cards/keyknox');
    assert.equal(empty.statusCode, 200);
    assert.deepEqual(empty.json(), { keyknox: [], next_cursor: null });
    const before = Date.now();
    const secret = 'encrypted private key of alice';
    const v1 = await h.keyknox('PUT', '/keyknox/v1', 'alice', {
      meta: b64('mm'),
      value: b64(secret),
    });
    const pushed = [];
    for (const [key, readers] of [
      ['laptop', ['bob']],
      ['<img src=x onerror=alert(1)>', ['carol', 'bob']],
      ['phone', []],
    ] as const)
      pushed.push(
        await h.keyknox('POST', '/keyknox/v2/push', 'alice', {
          root: 'e3kit',
          path: 'backup',
          key,
          identities: readers,
          meta: b64('m'),
          value: b64(`${secret} for ${key}`),
        }),
      );
    const after = Date.now();

    const rows: KeyknoxRow[] = [];
    const cursors: string[] = [];
    for (let cursor: string | null = ''; cursor !== null;) {
      const page = await h.admin(`/_cards/keyknox?limit=2&cursor=${cursor}`);
      assert.equal(page.statusCode, 200, page.body);
      assert.ok(!page.body.includes(b64(secret).slice(0, 12)), 'never the content');
      const body = page.json<KeyknoxPage>();
      assert.ok(body.keyknox.length <= 2);
      rows.push(...body.keyknox);
      cursor = body.next_cursor;
      if (cursor !== null) cursors.push(cursor);
    }
    assert.equal(cursors.length, 2, 'pages of 2, 2 and 0');
    assert.equal(rows.length, 4);
    const [blob, ...entries] = rows as [KeyknoxRow, ...KeyknoxRow[]];
    // The token's application: a Cards token names none.
    const app = '';
    assert.deepEqual(
      { ...blob, created: null, updated: null },
      {
        api: 'v1',
        app,
        owner: 'alice',
        root: null,
        path: null,
        key: null,
        readers: [],
        size: 2 + secret.length,
        version: '1.0',
        hash: v1.hash,
        created: null,
        updated: null,
      },
    );
    for (const row of rows) {
      for (const date of [row.created, row.updated]) {
        const at = Date.parse(date ?? '');
        assert.ok(at >= before && at <= after, `${date} within the test`);
      }
    }
    // Entries in key order (code units): '<' sorts before letters.
    assert.deepEqual(
      entries.map((e) => [e.api, e.owner, e.root, e.path, e.key, e.readers, e.version, e.size]),
      [
        [
          'v2',
          'alice',
          'e3kit',
          'backup',
          '<img src=x onerror=alert(1)>',
          ['carol', 'bob'],
          null,
          1 + Buffer.byteLength(`${secret} for <img src=x onerror=alert(1)>`),
        ],
        [
          'v2',
          'alice',
          'e3kit',
          'backup',
          'laptop',
          ['bob'],
          null,
          1 + Buffer.byteLength(`${secret} for laptop`),
        ],
        [
          'v2',
          'alice',
          'e3kit',
          'backup',
          'phone',
          [],
          null,
          1 + Buffer.byteLength(`${secret} for phone`),
        ],
      ],
    );
    assert.deepEqual(
      entries.map((e) => e.hash),
      [pushed[1]!.hash, pushed[0]!.hash, pushed[2]!.hash],
      'the wire hash a client holds',
    );
    // A page started at a cursor is the rest; the default limit holds everything here.
    const rest = (await h.admin(`/_cards/keyknox?cursor=${cursors[0]}`)).json<KeyknoxPage>();
    assert.deepEqual(rest, { keyknox: rows.slice(2), next_cursor: null });
  });

  test('the admin token is needed; a bad query string is QUERY_INVALID, saying what it must be', async () => {
    const h = await harness();
    await h.keyknox('PUT', '/keyknox/v1', 'alice', { meta: b64('m'), value: b64('v') });
    const card = `Service ${await mintToken({ key: appKey, identity: 'alice', now: Date.now(), ttlSeconds: 600 })}`;
    for (const [authorization, code] of [
      ['', 'ADMIN_AUTH_MISSING'],
      ['Bearer nope-nope-nope-nope', 'ADMIN_TOKEN_INVALID'],
      [card, 'ADMIN_TOKEN_INVALID'],
    ] as const)
      assert.equal(codeOf(await h.admin('/_cards/keyknox', authorization)), code);
    const ours = Buffer.from(JSON.stringify(['v3', 'app', 'alice'])).toString('base64url');
    const nul = Buffer.from(JSON.stringify(['v1', 'app', 'a\u0000'])).toString('base64url');
    for (const [query, says] of [
      ['limit=0', /limit must be an integer from 1 to 1000, got "0"/],
      ['limit=1001', /limit must be an integer from 1 to 1000/],
      ['limit=ten', /limit must be an integer from 1 to 1000, got "ten"/],
      ['cursor=not+a+cursor', /cursor must be the next_cursor of a previous page/],
      [`cursor=${ours}`, /cursor must be the next_cursor of a previous page/],
      [`cursor=${nul}`, /cursor must be the next_cursor of a previous page/],
      ['cursor=AAAA', /cursor must be the next_cursor of a previous page/],
      ['limit=1&limit=2', /limit is given more than once/],
    ] as const) {
      const refused = await h.admin(`/_cards/keyknox?${query}`);
      assert.equal(codeOf(refused), 'QUERY_INVALID', query);
      assert.match(refused.json<{ message: string }>().message, says, query);
    }
  });
});
