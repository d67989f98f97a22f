/**
 * The HTTP app through fastify's inject: every route in its three spellings, every state
 * transition, every error code the server can send (the last test checks none was missed;
 * the connection-level ones are in e2e.test.ts; e3kit's flows end to end in e3kit.test.ts),
 * both wire profiles, CORS.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { SignJWT } from 'jose';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { encodeBase64, encodeBase64Url, utf8 } from '../../src/core/encoding.js';
import { CardsError, codeForWire, WIRE_ERRORS, type WireCode } from '../../src/core/errors.js';
import { PROFILES, type ProfileName } from '../../src/core/profile.js';
import { generatePrivateKey } from '../../src/crypto/keys.js';
import { mintToken } from '../../src/crypto/tokens.js';
import { createApp } from '../../src/http/app.js';
import { createAuthenticator, type Authenticator } from '../../src/http/auth.js';
import { CARD_PREFIXES as ROUTE_PREFIXES } from '../../src/core/routes.js';
import { createRegistry, type Registry } from '../../src/registry/registry.js';
import type { MemoryStoreOptions } from '../../src/store/memory/memory-store.js';
import { openTestStore, testEngine } from '../store/engines.js';
import { checkContract } from '../helpers/contract.js';
import { cardFromFields, fieldsFor, makeCard, makeRevocation } from './card-kit.js';
import { blind, e3kitDeps } from './e3kit-kit.js';

const appKey = generatePrivateKey();
const ADMIN_TOKEN = 'cards_admin_test-token-0123456789';
const serviceKey = generatePrivateKey();
/** Codes seen in responses; the last test checks every server code was reached. */
const seen = new Set<WireCode>();

interface Harness {
  app: FastifyInstance;
  registry: Registry;
  token(identity: string): Promise<string>;
  call(
    method: InjectOptions['method'],
    url: string,
    options?: {
      body?: unknown;
      raw?: string;
      identity?: string | null;
      headers?: Record<string, string>;
    },
  ): Promise<LightMyRequestResponse>;
}

async function harness(
  options: {
    profile?: ProfileName;
    cors?: boolean;
    store?: MemoryStoreOptions;
    auth?: Authenticator;
    clock?: () => number;
  } = {},
): Promise<Harness> {
  const profile = PROFILES[options.profile ?? 'service'];
  const store = await openTestStore(testEngine(), options.store);
  const registry = createRegistry({ store, serviceKey, signer: profile.signer });
  const auth =
    options.auth ??
    createAuthenticator({
      keys: [{ key: appKey.publicKey }],
      scheme: profile.scheme,
      ...(options.clock && { clock: options.clock }),
    });
  const app = await createApp({
    registry,
    profile,
    auth,
    cors: options.cors ?? true,
    version: 'test',
    admin: { token: ADMIN_TOKEN, loopbackOpen: false, serviceKey: serviceKey.publicKey.toBase64() },
    e3kit: await e3kitDeps(),
  });
  const token = async (identity: string): Promise<string> =>
    mintToken({ key: appKey, identity, now: Date.now(), ttlSeconds: 600 });
  return {
    app,
    registry,
    token,
    async call(method, url, { body, raw, identity = 'alice', headers = {} } = {}) {
      const all: Record<string, string> = { ...headers };
      if (identity !== null) all.authorization ??= `${profile.scheme} ${await token(identity)}`;
      if (body !== undefined || raw !== undefined) all['content-type'] ??= 'application/json';
      const response = await app.inject({
        method,
        url,
        headers: all,
        ...(raw !== undefined
          ? { payload: raw }
          : body !== undefined
            ? { payload: JSON.stringify(body) }
            : {}),
      });
      checkContract(profile.name, {
        method: String(method),
        url,
        status: response.statusCode,
        headers: response.headers,
        body: response.body,
      });
      if (response.statusCode >= 400) {
        const parsed = response.json<{ code: string | number; message: string }>();
        const code = codeForWire(parsed.code);
        assert.ok(code, `unknown wire code ${parsed.code}`);
        assert.equal(response.statusCode, WIRE_ERRORS[code].status, `${code} status`);
        assert.equal(typeof parsed.code, profile.codeType, 'code type of the profile');
        assert.equal(typeof parsed.message, 'string');
        seen.add(code);
      }
      return response;
    },
  };
}

const codeOf = (response: LightMyRequestResponse): WireCode | number => {
  if (response.statusCode < 400) return response.statusCode;
  return codeForWire(response.json<{ code: string }>().code) as WireCode;
};

describe('every route in all three spellings', () => {
  for (const prefix of ROUTE_PREFIXES) {
    test(`${prefix}: create, get, search, replace, revoke, revoke by id`, async () => {
      const h = await harness();
      const a = makeCard('alice');
      const created = await h.call('POST', prefix, { body: a.raw });
      assert.equal(created.statusCode, 201);
      assert.match(created.headers['content-type'] as string, /^application\/json/);
      const stored = created.json<{ content_snapshot: string; signatures: { signer: string }[] }>();
      assert.equal(stored.content_snapshot, a.raw.content_snapshot);
      assert.deepEqual(
        stored.signatures.map((s) => s.signer),
        ['self', 'service'],
      );

      const got = await h.call('GET', `${prefix}/${a.id}`);
      assert.equal(got.statusCode, 200);
      assert.deepEqual(got.json(), stored);
      assert.equal(got.headers['x-service-is-superseeded'], undefined);

      const b = makeCard('alice', { previousCardId: a.id });
      assert.equal((await h.call('POST', prefix, { body: b.raw })).statusCode, 201);
      const old = await h.call('GET', `${prefix}/${a.id}`);
      assert.equal(old.headers['x-service-is-superseeded'], 'true');

      const found = await h.call('POST', `${prefix}/actions/search`, {
        body: { identities: ['alice'] },
      });
      assert.equal(found.statusCode, 200);
      assert.equal(found.json<unknown[]>().length, 2);

      const c = makeCard('alice');
      await h.call('POST', prefix, { body: c.raw });
      const revoked = await h.call('POST', `${prefix}/actions/revoke`, {
        body: makeRevocation('alice', b.id).raw,
      });
      assert.equal(revoked.statusCode, 200);
      assert.deepEqual(
        revoked.json<{ signatures: { signer: string }[] }>().signatures.map((s) => s.signer),
        ['service'],
      );
      const byId = await h.call('POST', `${prefix}/actions/revoke/${c.id}`, { raw: '{}' });
      assert.equal(byId.statusCode, 200);
      assert.equal(
        (await h.call('GET', `${prefix}/${c.id}`)).headers['x-service-is-superseeded'],
        'true',
      );
      const none = await h.call('POST', `${prefix}/actions/search`, {
        body: { identity: 'alice' },
      });
      assert.deepEqual(none.json(), []);
      assert.equal((await h.call('HEAD', `${prefix}/${a.id}`)).statusCode, 200);
    });
  }
});

describe('the Error object for every refusal', () => {
  test('card rules over HTTP (codes, not messages)', async () => {
    const h = await harness();
    const key = generatePrivateKey();
    const a = makeCard('alice');
    await h.call('POST', '/card/v5', { body: a.raw });
    const sig = { signer: 'x', signature: encodeBase64(new Uint8Array(83)) };
    const body = (overrides: Record<string, unknown>) =>
      cardFromFields(fieldsFor('alice', key, overrides), key).raw;
    const cases: [string, string, unknown, WireCode][] = [
      ['POST', '/card/v5', { signatures: [] }, 'BODY_PARSE'],
      ['POST', '/card/v5', { content_snapshot: '', signatures: [] }, 'SNAPSHOT_EMPTY'],
      ['POST', '/card/v5', { content_snapshot: '$', signatures: [] }, 'SNAPSHOT_NOT_BASE64'],
      ['POST', '/card/v5', { content_snapshot: 'bm9wZQ==', signatures: [] }, 'SNAPSHOT_NOT_JSON'],
      ['POST', '/card/v5', body({ public_key: 'AAAA' }), 'PUBLIC_KEY_TOO_SHORT'],
      [
        'POST',
        '/card/v5',
        body({ public_key: encodeBase64(new Uint8Array(4097)) }),
        'PUBLIC_KEY_TOO_LONG',
      ],
      ['POST', '/card/v5', body({ public_key: '!!!!' }), 'PUBLIC_KEY_NOT_BASE64'],
      ['POST', '/card/v5', body({ identity: '' }), 'IDENTITY_EMPTY'],
      ['POST', '/card/v5', body({ identity: 'x'.repeat(1025) }), 'IDENTITY_TOO_LONG'],
      ['POST', '/card/v5', body({ identity: 'bob' }), 'IDENTITY_MISMATCH'],
      ['POST', '/card/v5', body({ previous_card_id: 'zz' }), 'PREVIOUS_ID_INVALID'],
      ['POST', '/card/v5', body({ created_at: -1 }), 'CREATED_AT_INVALID'],
      ['POST', '/card/v5', body({ version: '5' }), 'VERSION_INVALID'],
      ['POST', '/card/v5', { content_snapshot: a.raw.content_snapshot }, 'SIGNATURES_EMPTY'],
      ['POST', '/card/v5', { ...a.raw, signatures: Array(9).fill(sig) }, 'SIGNATURES_TOO_MANY'],
      [
        'POST',
        '/card/v5',
        { ...a.raw, signatures: [{ signature: sig.signature }] },
        'SIGNER_INVALID',
      ],
      ['POST', '/card/v5', { ...a.raw, signatures: [{ ...sig, signer: '' }] }, 'SIGNER_EMPTY'],
      [
        'POST',
        '/card/v5',
        { ...a.raw, signatures: [{ ...sig, signer: 'y'.repeat(1025) }] },
        'SIGNER_TOO_LONG',
      ],
      ['POST', '/card/v5', { ...a.raw, signatures: [{ signer: 'self' }] }, 'SIGNATURE_MISSING'],
      [
        'POST',
        '/card/v5',
        { ...a.raw, signatures: [{ signer: 'self', signature: '$' }] },
        'SIGNATURE_NOT_BASE64',
      ],
      [
        'POST',
        '/card/v5',
        { ...a.raw, signatures: [{ ...sig, snapshot: '$' }] },
        'EXTRA_SNAPSHOT_INVALID',
      ],
      [
        'POST',
        '/card/v5',
        { ...a.raw, signatures: [{ ...sig, snapshot: encodeBase64(new Uint8Array(1025)) }] },
        'EXTRA_SNAPSHOT_TOO_LONG',
      ],
      ['POST', '/card/v5', { ...a.raw, signatures: [sig] }, 'SELF_SIGNATURE_MISSING'],
      [
        'POST',
        '/card/v5',
        { ...a.raw, signatures: [a.raw.signatures[0], a.raw.signatures[0]] },
        'SELF_SIGNATURE_DUPLICATE',
      ],
      [
        'POST',
        '/card/v5',
        cardFromFields(fieldsFor('alice', key), generatePrivateKey()).raw,
        'SIGNATURE_INVALID',
      ],
      [
        'POST',
        '/card/v5',
        // An X25519 key (encryption only): refused by name, never stored unchecked.
        cardFromFields({
          ...fieldsFor('alice', key),
          public_key: encodeBase64(
            new Uint8Array([
              ...Buffer.from('302a300506032b656e032100', 'hex'),
              ...Array(32).fill(9),
            ]),
          ),
        }).raw,
        'KEY_TYPE_UNSUPPORTED',
      ],
      ['POST', '/card/v5', a.raw, 'SNAPSHOT_NOT_UNIQUE'],
      [
        'POST',
        '/card/v5',
        makeCard('alice', { previousCardId: 'f'.repeat(64) }).raw,
        'PREVIOUS_NOT_FOUND',
      ],
      // Text every engine holds alike (docs/http.md, "Text"): no U+0000, no lone surrogate.
      ['POST', '/card/v5', body({ identity: 'al\u0000ice' }), 'TEXT_NOT_UNICODE'],
      ['POST', '/card/v5/actions/search', { identities: ['x\uD800'] }, 'TEXT_NOT_UNICODE'],
      // A snapshot read one way only: a name twice is not JSON to us (40003).
      [
        'POST',
        '/card/v5',
        {
          content_snapshot: encodeBase64(
            utf8('{"identity":"alice","identity":"bob","version":"5.0","created_at":1}'),
          ),
          signatures: [],
        },
        'SNAPSHOT_NOT_JSON',
      ],
      ['POST', '/card/v5/actions/search', {}, 'SEARCH_EMPTY'],
      ['POST', '/card/v5/actions/search', { identities: Array(51).fill('a') }, 'SEARCH_TOO_MANY'],
      [
        'POST',
        '/card/v5/actions/revoke',
        cardFromFields({ identity: 'alice', version: '5.0', created_at: 1 }).raw,
        'REVOKE_PREVIOUS_MISSING',
      ],
      [
        'POST',
        '/card/v5/actions/revoke',
        makeCard('alice', { previousCardId: a.id }).raw,
        'PUBLIC_KEY_NOT_EMPTY',
      ],
      ['GET', `/card/v5/${'0'.repeat(64)}`, undefined, 'CARD_NOT_FOUND'],
      ['GET', '/card/v5/xyz', undefined, 'CARD_ID_INVALID'],
      ['GET', `/card/v5/${'a'.repeat(300)}`, undefined, 'CARD_ID_INVALID'],
      ['POST', `/card/v5/actions/revoke/${'0'.repeat(64)}`, undefined, 'CARD_NOT_FOUND'],
      ['POST', `/card/v5/actions/revoke/${a.id}`, { reason: 'x' }, 'BODY_PARSE'],
    ];
    for (const [method, url, payload, expected] of cases) {
      const response = await h.call(
        method as 'GET',
        url,
        payload === undefined ? {} : { body: payload },
      );
      assert.equal(codeOf(response), expected, `${method} ${url} → ${response.body}`);
    }
    // Chain transitions refused over HTTP.
    const b = makeCard('bob');
    await h.call('POST', '/card/v5', { body: b.raw, identity: 'bob' });
    const chainCases: [string, unknown, string, WireCode][] = [
      [
        '/card/v5',
        makeCard('alice', { previousCardId: b.id }).raw,
        'alice',
        'PREVIOUS_IDENTITY_MISMATCH',
      ],
      [
        '/card/v5/actions/revoke',
        makeRevocation('bob', a.id).raw,
        'bob',
        'PREVIOUS_IDENTITY_MISMATCH',
      ],
      ['/card/v5/actions/revoke', makeRevocation('alice', a.id).raw, 'bob', 'IDENTITY_MISMATCH'],
      [`/card/v5/actions/revoke/${a.id}`, undefined, 'bob', 'IDENTITY_MISMATCH'],
    ];
    for (const [url, payload, identity, expected] of chainCases)
      assert.equal(
        codeOf(
          await h.call('POST', url, { ...(payload !== undefined && { body: payload }), identity }),
        ),
        expected,
        url,
      );
    const a2 = makeCard('alice', { previousCardId: a.id });
    await h.call('POST', '/card/v5', { body: a2.raw });
    assert.equal(
      codeOf(
        await h.call('POST', '/card/v5', { body: makeCard('alice', { previousCardId: a.id }).raw }),
      ),
      'PREVIOUS_SUPERSEDED',
    );
    const superseded = await h.call('POST', `/card/v5/actions/revoke/${a.id}`);
    assert.equal(codeOf(superseded), 'PREVIOUS_SUPERSEDED');
    assert.match(superseded.json<{ message: string }>().message, new RegExp(a2.id));
    assert.equal((await h.call('POST', `/card/v5/actions/revoke/${a2.id}`)).statusCode, 200);
    assert.equal(codeOf(await h.call('POST', `/card/v5/actions/revoke/${a2.id}`)), 'CHAIN_REVOKED');
    assert.equal(
      codeOf(
        await h.call('POST', '/card/v5', {
          body: makeCard('alice', { previousCardId: a2.id }).raw,
        }),
      ),
      'CHAIN_REVOKED',
    );
  });

  test('authentication: 401 with the code of each failure', async () => {
    const now = Date.now();
    const h = await harness();
    const seg = (v: unknown) => encodeBase64Url(utf8(JSON.stringify(v)));
    const noSub = await new SignJWT({})
      .setProtectedHeader({ alg: 'EdDSA' })
      .setExpirationTime(Math.floor(now / 1000) + 60)
      .sign(appKey.keyObject);
    const cases: [string | undefined, WireCode | number][] = [
      [undefined, 'AUTH_MISSING'],
      ['', 'AUTH_MISSING'],
      [`Bearer ${await h.token('alice')}`, 'AUTH_SCHEME'],
      ['Service', 'TOKEN_MALFORMED'],
      ['Service not.a.token', 'TOKEN_MALFORMED'],
      [
        `Service ${await mintToken({ key: generatePrivateKey(), identity: 'alice', now, ttlSeconds: 60 })}`,
        'TOKEN_SIGNATURE',
      ],
      [
        `Service ${await mintToken({ key: appKey, identity: 'alice', now: now - 3_600_000, ttlSeconds: 60 })}`,
        'TOKEN_EXPIRED',
      ],
      [
        `Service ${await mintToken({ key: appKey, identity: 'alice', now: now + 3_600_000, ttlSeconds: 60 })}`,
        'TOKEN_NOT_YET_VALID',
      ],
      [
        `Service ${seg({ alg: 'HS256', typ: 'JWT' })}.${seg({ sub: 'alice' })}.c2ln`,
        'TOKEN_ALGORITHM',
      ],
      [`Service ${noSub}`, 'TOKEN_CLAIMS'],
      [`service ${await h.token('alice')}`, 200],
      [`SERVICE ${await h.token('alice')}`, 200],
      [
        `Service ${await mintToken({ key: appKey, identity: 'alice', now, ttlSeconds: 60, format: 'stock', appId: 'a', kid: 'k' })}`,
        200,
      ],
    ];
    for (const [header, expected] of cases) {
      const response = await h.call('POST', '/card/v5/actions/search', {
        body: { identity: 'alice' },
        identity: null,
        headers: header === undefined ? {} : { authorization: header },
      });
      assert.equal(codeOf(response), expected, header);
    }
    // Every authenticated route refuses without a token, before reading the body.
    for (const [method, url] of [
      ['POST', '/card/v5'],
      ['GET', `/card/v5/${'0'.repeat(64)}`],
      ['POST', '/card/v5/actions/search'],
      ['POST', '/card/v5/actions/revoke'],
      ['POST', `/card/v5/actions/revoke/${'0'.repeat(64)}`],
    ] as const)
      assert.equal(
        codeOf(await h.call(method, url, { identity: null, raw: '{bad json' })),
        'AUTH_MISSING',
      );
  });

  test('a remembered token is checked again once it expires', async () => {
    let now = Date.now();
    const h = await harness({ clock: () => now });
    const token = await mintToken({ key: appKey, identity: 'alice', now, ttlSeconds: 60 });
    const search = () =>
      h.call('POST', '/card/v5/actions/search', {
        body: { identity: 'alice' },
        identity: null,
        headers: { authorization: `Service ${token}` },
      });
    assert.equal((await search()).statusCode, 200);
    assert.equal((await search()).statusCode, 200);
    now += 120_000;
    assert.equal(codeOf(await search()), 'TOKEN_EXPIRED');
  });

  test('HTTP-level refusals: 404, 405 with Allow, 413, 415, bad JSON, bad URL, 500s', async () => {
    const h = await harness();
    const cases: [
      InjectOptions['method'],
      string,
      { raw?: string; headers?: Record<string, string> },
      WireCode,
      string?,
    ][] = [
      ['GET', '/nope', {}, 'ROUTE_NOT_FOUND'],
      ['GET', '/card/v5/', {}, 'CARD_ID_INVALID'],
      ['GET', '/card/v5/a/b', {}, 'ROUTE_NOT_FOUND'],
      ['POST', '/v6/card', { raw: '{}' }, 'ROUTE_NOT_FOUND'],
      ['GET', '/card/v5', {}, 'CARD_ID_INVALID'],
      ['GET', '/v5/card', {}, 'METHOD_NOT_ALLOWED', 'POST, OPTIONS'],
      ['PUT', '/v5/card', { raw: '{' }, 'METHOD_NOT_ALLOWED', 'POST, OPTIONS'],
      ['DELETE', `/card/v5/${'0'.repeat(64)}`, {}, 'METHOD_NOT_ALLOWED', 'GET, HEAD, OPTIONS'],
      ['GET', '/card/actions/search', {}, 'METHOD_NOT_ALLOWED', 'POST, OPTIONS'],
      ['GET', '/v5/card/actions/revoke/abc', {}, 'METHOD_NOT_ALLOWED', 'POST, OPTIONS'],
      ['POST', '/health', { raw: '{}' }, 'METHOD_NOT_ALLOWED', 'GET, HEAD, OPTIONS'],
      ['POST', '/card/v5', { raw: '{"content_snapshot":' }, 'BODY_PARSE'],
      [
        'POST',
        '/card/v5',
        { raw: `{"content_snapshot":"${'A'.repeat(70_000)}"}` },
        'BODY_TOO_LARGE',
      ],
      [
        'POST',
        '/card/v5',
        { raw: 'x', headers: { 'content-type': 'text/plain' } },
        'UNSUPPORTED_MEDIA_TYPE',
      ],
      [
        'POST',
        '/card/v5/actions/search',
        { raw: '<a/>', headers: { 'content-type': 'application/xml' } },
        'UNSUPPORTED_MEDIA_TYPE',
      ],
      ['GET', '/card/v5/%zz', {}, 'HTTP_MALFORMED'],
    ];
    for (const [method, url, options, expected, allow] of cases) {
      const response = await h.call(method, url, options);
      assert.equal(codeOf(response), expected, `${method} ${url}`);
      if (allow) assert.equal(response.headers.allow, allow, `${method} ${url} Allow`);
      assert.doesNotMatch(response.body, /FST_|Unexpected|SyntaxError/);
    }

    const failing = await harness({
      store: { beforeAppend: () => Promise.reject(new Error('EIO: disk gone')) },
    });
    const down = await failing.call('POST', '/card/v5', { body: makeCard('alice').raw });
    assert.equal(codeOf(down), 'STORE_UNAVAILABLE');
    assert.doesNotMatch(down.body, /EIO/);
    // A store that stopped accepting writes (a failed write it could not undo): 503, no detail.
    const halted = await harness({
      store: {
        beforeAppend: () =>
          Promise.reject(new CardsError('STORE_READ_ONLY', 'journal /secret/path in doubt')),
      },
    });
    const readOnly = await halted.call('POST', '/card/v5', { body: makeCard('alice').raw });
    assert.equal(readOnly.statusCode, 503);
    assert.equal(codeOf(readOnly), 'STORE_READ_ONLY');
    assert.doesNotMatch(readOnly.body, /secret/);
    const broken = await harness({
      auth: {
        authenticate: () => Promise.reject(new TypeError('secret detail')),
        caller: () => Promise.reject(new TypeError('secret detail')),
      },
    });
    const internal = await broken.call('POST', '/card/v5/actions/search', {
      body: { identity: 'a' },
    });
    assert.equal(codeOf(internal), 'INTERNAL');
    assert.doesNotMatch(internal.body, /secret detail/);
  });

  test('revoke by id: the bodies the clients send', async () => {
    const h = await harness();
    const cases: [{ raw?: string; headers?: Record<string, string> }, WireCode | number][] = [
      [{}, 200],
      [{ raw: '' }, 200],
      [{ raw: '{}' }, 200],
      [{ raw: ' {} ' }, 200],
      [{ raw: '{"a":1}' }, 'BODY_PARSE'],
      [{ raw: '[]' }, 'BODY_PARSE'],
      [{ raw: 'null' }, 'BODY_PARSE'],
      [{ raw: '{' }, 'BODY_PARSE'],
      [{ raw: '{}', headers: { 'content-type': 'text/plain' } }, 'UNSUPPORTED_MEDIA_TYPE'],
    ];
    for (const [options, expected] of cases) {
      const card = makeCard('alice');
      await h.call('POST', '/card/v5', { body: card.raw });
      const response = await h.call('POST', `/card/v5/actions/revoke/${card.id}`, options);
      assert.equal(codeOf(response), expected, JSON.stringify(options));
    }
  });
});

describe('wire profiles', () => {
  test('virgil: scheme, signer, header and numeric codes', async () => {
    const h = await harness({ profile: 'virgil' });
    const a = makeCard('alice');
    const created = await h.call('POST', '/card/v5', { body: a.raw });
    assert.deepEqual(
      created.json<{ signatures: { signer: string }[] }>().signatures.map((s) => s.signer),
      ['self', 'virgil'],
    );
    await h.call('POST', '/card/v5', { body: makeCard('alice', { previousCardId: a.id }).raw });
    const got = await h.call('GET', `/card/v5/${a.id}`);
    assert.equal(got.headers['x-virgil-is-superseeded'], 'true');
    assert.equal(got.headers['x-service-is-superseeded'], undefined);
    const expired = await h.call('POST', '/card/v5/actions/search', {
      body: { identity: 'alice' },
      identity: null,
      headers: {
        authorization: `Virgil ${await mintToken({ key: appKey, identity: 'alice', now: 1e12, ttlSeconds: 60 })}`,
      },
    });
    assert.deepEqual(expired.json(), { code: 20304, message: WIRE_ERRORS.TOKEN_EXPIRED.message });
    const wrongScheme = await h.call('GET', `/card/v5/${a.id}`, {
      identity: null,
      headers: { authorization: `Service ${await h.token('alice')}` },
    });
    assert.equal(codeOf(wrongScheme), 'AUTH_SCHEME');
    const service = makeCard('alice');
    const refused = await h.call('POST', '/card/v5', {
      body: {
        ...service.raw,
        signatures: [
          ...service.raw.signatures,
          { signer: 'virgil', signature: service.raw.signatures[0]?.signature },
        ],
      },
    });
    assert.equal(codeOf(refused), 'SIGNER_INVALID');
  });

  test('service: string codes', async () => {
    const h = await harness();
    const response = await h.call('GET', `/card/v5/${'0'.repeat(64)}`);
    assert.deepEqual(response.json(), {
      code: '10001',
      message: WIRE_ERRORS.CARD_NOT_FOUND.message,
    });
  });
});

describe('CORS and health', () => {
  test('CORS on by default: any origin, the allowed and exposed headers', async () => {
    const h = await harness();
    const preflight = await h.app.inject({
      method: 'OPTIONS',
      url: '/card/v5',
      headers: {
        origin: 'http://app.test',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type,virgil-agent',
      },
    });
    assert.equal(preflight.statusCode, 204);
    assert.equal(preflight.headers['access-control-allow-origin'], '*');
    assert.match(
      String(preflight.headers['access-control-allow-headers']),
      /Authorization.*Content-Type.*Virgil-Agent/,
    );
    const got = await h.call('GET', `/card/v5/${'0'.repeat(64)}`, {
      headers: { origin: 'http://app.test' },
    });
    assert.equal(got.headers['access-control-allow-origin'], '*');
    assert.equal(
      got.headers['access-control-expose-headers'],
      'X-Service-Is-Superseeded, Service-Keyknox-Hash',
    );
  });

  test('--no-cors: no CORS headers; OPTIONS is 405', async () => {
    const h = await harness({ cors: false });
    const response = await h.call('OPTIONS', '/v5/card', {
      identity: null,
      headers: { origin: 'http://app.test', 'access-control-request-method': 'POST' },
    });
    assert.equal(codeOf(response), 'METHOD_NOT_ALLOWED');
    assert.equal(response.headers.allow, 'POST');
    assert.equal(response.headers['access-control-allow-origin'], undefined);
  });

  test('GET /health needs no token', async () => {
    const h = await harness();
    await h.call('POST', '/card/v5', { body: makeCard('alice').raw });
    const health = await h.call('GET', '/health', { identity: null });
    assert.deepEqual(health.json(), {
      status: 'ok',
      cards: 1,
      profile: 'service',
      version: 'test',
    });
  });
});

describe("e3kit's routes: answers, refusals that change nothing", () => {
  const HASH = 'service-keyknox-hash';
  const PREVIOUS = 'Service-Keyknox-Previous-Hash';
  const b64 = (text: string): string => Buffer.from(text).toString('base64');

  test('Keyknox v1: empty pull, push, conflicts, versions, reset; a refused push stores nothing', async () => {
    const h = await harness();
    const empty = await h.call('GET', '/keyknox/v1', { identity: 'kk1' });
    assert.equal(empty.statusCode, 200);
    assert.deepEqual(empty.json(), { meta: '', value: '', version: '1.0' });
    const absentHash = String(empty.headers[HASH]);
    assert.match(absentHash, /^[A-Za-z0-9+/]+=*$/);
    for (const [body, code] of [
      [{ meta: '', value: b64('v') }, 'KEYKNOX_VALUE_INVALID'],
      [{ meta: b64('m'), value: 'not base64!' }, 'KEYKNOX_VALUE_INVALID'],
      [[], 'BODY_PARSE'],
    ] as const) {
      const refused = await h.call('PUT', '/keyknox/v1', { body, identity: 'kk1' });
      assert.equal(codeOf(refused), code);
    }
    assert.equal(codeOf(await h.call('PUT', '/keyknox/v1', { identity: null })), 'AUTH_MISSING');
    assert.equal(
      (await h.call('GET', '/keyknox/v1', { identity: 'kk1' })).headers[HASH],
      absentHash,
    );
    const blob = { meta: b64('meta'), value: b64('value') };
    const first = await h.call('PUT', '/keyknox/v1', { body: blob, identity: 'kk1' });
    assert.equal(first.statusCode, 200);
    assert.deepEqual(first.json(), { ...blob, version: '1.0' });
    const hash = String(first.headers[HASH]);
    assert.notEqual(hash, absentHash);
    assert.equal((await h.call('GET', '/keyknox/v1', { identity: 'kk1' })).headers[HASH], hash);
    for (const headers of [{}, { [PREVIOUS]: absentHash }, { [PREVIOUS]: 'bm9wZQ==' }] as Record<
      string,
      string
    >[])
      assert.equal(
        codeOf(await h.call('PUT', '/keyknox/v1', { body: blob, identity: 'kk1', headers })),
        'KEYKNOX_CONFLICT',
      );
    const second = await h.call('PUT', '/keyknox/v1', {
      body: { meta: b64('m2'), value: b64('v2') },
      identity: 'kk1',
      headers: { [PREVIOUS]: hash },
    });
    assert.equal(second.json<{ version: string }>().version, '2.0');
    // The stock client resets with no body but its HTTP library's form Content-Type.
    const reset = await h.call('POST', '/keyknox/v1/reset', {
      identity: 'kk1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(reset.statusCode, 200);
    assert.deepEqual(reset.json(), { meta: '', value: '', version: '3.0' });
    assert.equal(
      codeOf(
        await h.call('POST', '/keyknox/v1/reset', {
          identity: 'kk1',
          raw: 'a=b',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        }),
      ),
      'UNSUPPORTED_MEDIA_TYPE',
    );
    // Another identity sees nothing of kk1's.
    assert.deepEqual((await h.call('GET', '/keyknox/v1', { identity: 'other' })).json(), {
      meta: '',
      value: '',
      version: '1.0',
    });
  });

  test('Keyknox v2: readers, copies, keys, reset; bad addresses and readers refused', async () => {
    const h = await harness();
    const at = { root: 'group-sessions', path: 'session', key: '1' };
    for (const [body, code] of [
      [
        { ...at, root: '', identities: [], meta: b64('m'), value: b64('v') },
        'KEYKNOX_ADDRESS_INVALID',
      ],
      [{ ...at, identities: 'bob', meta: b64('m'), value: b64('v') }, 'KEYKNOX_IDENTITIES_INVALID'],
      [{ ...at, identities: [''], meta: b64('m'), value: b64('v') }, 'KEYKNOX_IDENTITIES_INVALID'],
      [{ ...at, identities: [], meta: 5, value: b64('v') }, 'KEYKNOX_VALUE_INVALID'],
      ['text', 'BODY_PARSE'],
    ] as const)
      assert.equal(
        codeOf(await h.call('POST', '/keyknox/v2/push', { body, identity: 'owner' })),
        code,
      );
    assert.deepEqual(
      (
        await h.call('POST', '/keyknox/v2/keys', {
          body: { root: at.root, path: at.path },
          identity: 'owner',
        })
      ).json(),
      [],
    );
    const absent = await h.call('POST', '/keyknox/v2/pull', { body: at, identity: 'owner' });
    assert.deepEqual(absent.json(), { owner: 'owner', ...at, identities: [], meta: '', value: '' });
    const pushed = await h.call('POST', '/keyknox/v2/push', {
      body: { ...at, identities: ['owner', 'bob'], meta: b64('m1'), value: b64('for bob') },
      identity: 'owner',
      headers: { [PREVIOUS]: String(absent.headers[HASH]) },
    });
    assert.equal(pushed.statusCode, 200);
    assert.equal(
      codeOf(
        await h.call('POST', '/keyknox/v2/push', {
          body: { ...at, identities: ['carol'], meta: b64('m2'), value: b64('x') },
          identity: 'owner',
        }),
      ),
      'KEYKNOX_CONFLICT',
    );
    const added = await h.call('POST', '/keyknox/v2/push', {
      body: { ...at, identities: ['carol'], meta: b64('m2'), value: b64('for carol') },
      identity: 'owner',
      headers: { [PREVIOUS]: String(pushed.headers[HASH]) },
    });
    assert.deepEqual(added.json<{ identities: string[] }>().identities, ['owner', 'bob', 'carol']);
    const pullAs = async (identity: string) =>
      (
        await h.call('POST', '/keyknox/v2/pull', { body: { ...at, identity: 'owner' }, identity })
      ).json<{
        value: string;
      }>().value;
    assert.equal(await pullAs('bob'), b64('for bob'), 'bob keeps the copy pushed when named');
    assert.equal(await pullAs('carol'), b64('for carol'));
    assert.equal(await pullAs('mallory'), '', 'not a reader: as absent');
    assert.deepEqual(
      (
        await h.call('POST', '/keyknox/v2/keys', {
          body: { ...at, key: undefined, identity: 'owner' },
          identity: 'mallory',
        })
      ).json(),
      [],
    );
    assert.equal(
      codeOf(await h.call('POST', '/keyknox/v2/keys', { body: { path: 'p' }, identity: 'owner' })),
      'KEYKNOX_ADDRESS_INVALID',
    );
    await h.call('POST', '/keyknox/v2/reset', {
      body: { ...at, identity: 'bob' },
      identity: 'owner',
    });
    assert.equal(await pullAs('bob'), '', 'a removed reader reads nothing');
    assert.deepEqual(
      (
        await h.call('POST', '/keyknox/v2/keys', {
          body: { root: at.root, path: at.path, identity: 'owner' },
          identity: 'carol',
        })
      ).json(),
      ['1'],
    );
    assert.equal(
      (
        await h.call('POST', '/keyknox/v2/reset', {
          body: { root: at.root, path: at.path },
          identity: 'owner',
        })
      ).statusCode,
      200,
    );
    assert.equal(await pullAs('carol'), '', 'deleted');
  });

  test('Pythia: brainkeys repeat for one password, throttled past the burst; bad input refused', async () => {
    const h = await harness();
    const { blinded, deblind } = await blind('password');
    for (const [url, body, code] of [
      ['/pythia/v1/brainkey', { blinded_password: 'abc' }, 'PYTHIA_PASSWORD_INVALID'],
      ['/pythia/v1/brainkey', { blinded_password: b64('x'.repeat(49)) }, 'PYTHIA_PASSWORD_INVALID'],
      [
        '/pythia/v1/brainkey',
        { blinded_password: blinded, brainkey_id: 5 },
        'PYTHIA_BRAINKEY_ID_INVALID',
      ],
      ['/pythia/v1/password', { blinded_password: blinded, user_id: '!!' }, 'PYTHIA_SALT_INVALID'],
      [
        '/pythia/v1/password',
        { blinded_password: blinded, user_id: b64('s'), version: 3 },
        'PYTHIA_VERSION_UNKNOWN',
      ],
      [
        '/pythia/v1/password',
        { blinded_password: blinded, user_id: b64('s'), include_proof: 'yes' },
        'BODY_PARSE',
      ],
    ] as const)
      assert.equal(
        codeOf(await h.call('POST', url, { body, identity: 'py' })),
        code,
        JSON.stringify(body),
      );
    const seed = async () => {
      const r = await h.call('POST', '/pythia/v1/brainkey', {
        body: { blinded_password: blinded },
        identity: 'py',
      });
      assert.equal(r.statusCode, 200);
      return deblind(r.json<{ seed: string }>().seed);
    };
    assert.equal(await seed(), await seed(), 'a deterministic seed for one password');
    const throttled = await h.call('POST', '/pythia/v1/brainkey', {
      body: { blinded_password: blinded },
      identity: 'py',
    });
    assert.equal(codeOf(throttled), 'PYTHIA_THROTTLED');
    assert.equal(throttled.statusCode, 429);
    const other = await h.call('POST', '/pythia/v1/brainkey', {
      body: { blinded_password: blinded },
      identity: 'py2',
    });
    assert.equal(other.statusCode, 200, 'per identity');
    const proved = await h.call('POST', '/pythia/v1/password', {
      body: { blinded_password: blinded, user_id: b64('salt'), version: 1, include_proof: true },
      identity: 'py',
    });
    const answer = proved.json<{
      transformed_password: string;
      proof: { value_c: string; value_u: string };
    }>();
    assert.equal(Buffer.from(answer.transformed_password, 'base64').byteLength, 384);
    assert.ok(answer.proof.value_c && answer.proof.value_u);
    // The counts in /metrics are /_cards/info's: 3 brainkeys and 1 password answered, 1 throttled.
    const admin = { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } };
    const info = (await h.call('GET', '/_cards/info', admin)).json<{
      pythia: { brainkeys: number; passwords: number; throttled: number };
    }>();
    assert.deepEqual(
      { ...info.pythia, proof_keys: undefined, update_tokens: undefined },
      { proof_keys: undefined, update_tokens: undefined, brainkeys: 3, passwords: 1, throttled: 1 },
    );
    const metrics = (await h.call('GET', '/metrics', admin)).body;
    assert.match(metrics, /^cards_pythia_requests_total\{route="brainkey"\} 3$/m);
    assert.match(metrics, /^cards_pythia_requests_total\{route="password"\} 1$/m);
    assert.match(metrics, /^cards_pythia_throttled_total 1$/m);
  });

  test('body limits: Keyknox 1 MiB, Pythia 4 KiB, each named in its refusal', async () => {
    const h = await harness();
    const big = await h.call('POST', '/pythia/v1/brainkey', {
      raw: JSON.stringify({ blinded_password: 'a'.repeat(5000) }),
    });
    assert.equal(codeOf(big), 'BODY_TOO_LARGE');
    assert.match(big.json<{ message: string }>().message, /4 KiB/);
    const value = 'A'.repeat(300 * 1024);
    const fits = await h.call('PUT', '/keyknox/v1', {
      body: { meta: b64('m'), value },
      identity: 'big',
    });
    assert.equal(fits.statusCode, 200, 'a 300 KB blob (a group of 100) fits');
    const huge = await h.call('PUT', '/keyknox/v1', {
      body: { meta: b64('m'), value: 'A'.repeat(1100 * 1024) },
      identity: 'big2',
    });
    assert.equal(codeOf(huge), 'BODY_TOO_LARGE');
    assert.match(huge.json<{ message: string }>().message, /1 MiB/);
    assert.equal(
      (await h.call('GET', '/keyknox/v1', { identity: 'big2' })).json<{ value: string }>().value,
      '',
    );
  });

  test('CORS: a browser may PUT with the previous hash and read the hash', async () => {
    const h = await harness();
    const preflight = await h.app.inject({
      method: 'OPTIONS',
      url: '/keyknox/v1',
      headers: {
        origin: 'http://app.test',
        'access-control-request-method': 'PUT',
        'access-control-request-headers': `authorization,content-type,${PREVIOUS.toLowerCase()}`,
      },
    });
    assert.equal(preflight.statusCode, 204);
    assert.match(String(preflight.headers['access-control-allow-methods']), /PUT/);
    assert.match(String(preflight.headers['access-control-allow-headers']), new RegExp(PREVIOUS));
    const pulled = await h.call('GET', '/keyknox/v1', { headers: { origin: 'http://app.test' } });
    assert.match(String(pulled.headers['access-control-expose-headers']), /Service-Keyknox-Hash/);
  });
});

test('fuzz: arbitrary methods, paths, headers and bodies never get a 5xx', async () => {
  const h = await harness();
  const token = await h.token('alice');
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH'),
      fc.oneof(
        fc.constantFrom(
          ...ROUTE_PREFIXES.flatMap((p) => [
            p,
            `${p}/actions/search`,
            `${p}/actions/revoke`,
            `${p}/actions/revoke/${'a'.repeat(64)}`,
            `${p}/${'b'.repeat(64)}`,
          ]),
        ),
        fc.webPath().map((path) => (path.startsWith('/') ? path : `/${path}`)),
        fc.string().map((s) => `/card/v5/${encodeURIComponent(s)}`),
      ),
      fc.oneof(
        fc.string(),
        fc.jsonValue().map((v) => JSON.stringify(v)),
      ),
      fc.constantFrom(
        'application/json',
        'text/plain',
        'application/json; charset=utf-8',
        undefined,
      ),
      fc.constantFrom(`Service ${token}`, 'Service x', undefined, `Virgil ${token}`),
      async (method, url, payload, type, authorization) => {
        const response = await h.app.inject({
          method: method as 'GET',
          url,
          headers: {
            ...(type && { 'content-type': type }),
            ...(authorization && { authorization }),
          },
          ...(method !== 'GET' && method !== 'HEAD' && { payload }),
        });
        assert.ok(
          response.statusCode < 500,
          `${method} ${url} → ${response.statusCode} ${response.body}`,
        );
        if (response.statusCode >= 400 && method !== 'HEAD')
          assert.ok(codeForWire(response.json<{ code: string }>().code));
      },
    ),
    { numRuns: 300 },
  );
});

test('every code the server can send was reached (the connection-level ones in e2e.test.ts)', () => {
  const connectionLevel = new Set<WireCode>([
    'SERVER_BUSY',
    'REQUEST_TIMEOUT',
    'HEADERS_TOO_LARGE',
  ]);
  const serverCodes = (Object.keys(WIRE_ERRORS) as WireCode[]).filter(
    (code) => WIRE_ERRORS[code].wire < 90000,
  );
  // The admin API's codes are reached, and checked the same way, in admin.test.ts;
  // FAULT_INVALID (30104) in test/cli/faults.test.ts; KEYKNOX_ENTRY_TOO_LARGE (50004), which
  // takes 16 MiB of pushes, in test/attack/keyknox-entry-size.test.ts; TOKEN_NOT_LOCAL (20308),
  // which takes a server started with --accept-any-token, in
  // test/attack/accept-any-token-origin.test.ts; SNAPSHOT_TOO_LONG (40092), which no card
  // route's body can carry (64 KiB of base64 is about 48 KiB of snapshot), only an import line,
  // in test/attack/log-entry-size.test.ts.
  const reachedElsewhere = (code: WireCode): boolean =>
    [
      10101, 10102, 20308, 20320, 20321, 20322, 30100, 30101, 30102, 30103, 30104, 40092, 50004,
    ].includes(WIRE_ERRORS[code].wire);
  const missed = serverCodes.filter(
    (code) => !seen.has(code) && !connectionLevel.has(code) && !reachedElsewhere(code),
  );
  assert.deepEqual(missed, []);
});
