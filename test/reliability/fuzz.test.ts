/**
 * Bad input: property-based tests (fast-check, fixed seed, bounded runs) send
 * generated and mutated requests to every route: garbage and truncated JSON, wrong types, huge
 * numbers, deep nesting, duplicate keys, unicode and control characters, base64 with bad
 * padding or whitespace, ids of the wrong length or not hex, oversized bodies, wrong content
 * types. Never a 5xx, never a crash, always the Error object with a documented code, and the
 * store's files byte-identical after every refused request.
 *
 * Most runs go through fastify's inject on an app over a real JSON-file store (the same code as
 * `cards serve`, minus the socket: thousands of requests in seconds); a smaller part goes over
 * a real socket to a server on a real port, with raw bytes where fetch would refuse.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { encodeBase64, utf8 } from '../../src/core/encoding.js';
import type { ErrorCode } from '../../src/core/errors.js';
import { PROFILES } from '../../src/core/profile.js';
import { generatePrivateKey, type PrivateKey } from '../../src/crypto/keys.js';
import { signParts } from '../../src/crypto/ed25519.js';
import { mintToken } from '../../src/crypto/tokens.js';
import { createApp } from '../../src/http/app.js';
import { createAuthenticator } from '../../src/http/auth.js';
import { createRegistry } from '../../src/registry/registry.js';
import { JsonStore } from '../../src/store/json/json-store.js';
import { makeTempDir } from '../helpers/server.js';
import { startInProcess } from '../helpers/in-process-server.js';
import { cardFromFields, fieldsFor, makeCard } from '../http/card-kit.js';
import { errorCodeOf, parseRawResponse, rawExchange, storeBytes, tokenFor } from './kit.js';

const SEED = Number(process.env.RELIABILITY_SEED ?? 6_2024);
const appKey = generatePrivateKey();
const ownerKey = generatePrivateKey();
const PREFIXES = ['/card/v5', '/v5/card', '/card'] as const;

// ---------------------------------------------------------------------------------------------
// Generators
// ---------------------------------------------------------------------------------------------

/** Characters that break parsers: quotes, escapes, controls, lone surrogates, BOM, NUL. */
const nastyChar = fc.constantFrom(
  ...'"\\{}[],: \n\r\t=+/-_%é😀',
  '\u0000',
  '\u0001',
  '\u001f',
  '\u007f',
  '\ud800',
  '\udfff',
  '\ufeff',
  '\u2028',
);
const nastyString = fc.string({
  unit: fc.oneof(nastyChar, fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })),
  maxLength: 40,
});

const hugeNumber = fc.constantFrom(
  '1e309',
  '-1e309',
  '1e-400',
  '-0',
  '123456789012345678901234567890',
  '9007199254740993',
  '1.7976931348623157e308',
  '0.0000001',
  '-1',
  '1.5',
  '00',
  '01',
  '+1',
  '0x10',
  'NaN',
  'Infinity',
);

/** JSON values, including the kinds a card field must never be. */
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  nastyString,
  fc.constantFrom(null, true, false, 0, -1, 1.5, 2 ** 53 + 2, Number.MAX_VALUE, '', [], {}),
);

/** A valid card body as the stock client sends it, made fresh per run. */
const validCard = fc.constantFrom(...Array.from({ length: 8 }, () => makeCard('alice')));

/** A JSON text mutated at the character level: truncated, spliced, with garbage inserted. */
const mutatedText = (text: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.oneof(
    fc.tuple(text, fc.nat()).map(([t, n]) => t.slice(0, n % (t.length + 1))),
    fc.tuple(text, fc.nat(), fc.nat({ max: 5 }), nastyString).map(([t, at, cut, insert]) => {
      const i = at % (t.length + 1);
      return t.slice(0, i) + insert + t.slice(i + cut);
    }),
  );

/** base64 made wrong in the ways decoders disagree on: padding, whitespace, url alphabet. */
const badBase64 = (good: string): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constant(good.replace(/=+$/, '')),
    fc.constant(`${good}=`),
    fc.constant(`${good}==`),
    fc.constant(good.replace(/\+/g, '-').replace(/\//g, '_')),
    fc.constant(good.slice(0, -1)),
    fc.constant(`${good}A`),
    fc.constant(` ${good}`),
    fc.constant(`${good}\n`),
    fc
      .tuple(fc.nat(), fc.constantFrom(' ', '\n', '\t', '\r\n', '=', '.', '*', '\u0000'))
      .map(([at, ws]) => {
        const i = at % (good.length + 1);
        return good.slice(0, i) + ws + good.slice(i);
      }),
  );

/** Card ids and other path segments that are not a valid 64-hex id. */
const badId = fc.oneof(
  fc
    .string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), maxLength: 70 })
    .filter((s) => s.length !== 64),
  fc.constantFrom(
    'z'.repeat(64),
    `${'a'.repeat(63)}g`,
    `${'A'.repeat(64)}`,
    '%zz',
    '%',
    '%00',
    '%c0%af',
    '..',
    '%2e%2e',
    '%2F',
    `${'a'.repeat(64)}%00`,
    `${'0'.repeat(300)}`,
    '-1',
    'null',
    '%E2%82',
  ),
  fc.string({ unit: fc.constantFrom('a', 'f', '0', '9', 'g', '%', '.', '~', '-'), maxLength: 80 }),
);

/** Fields of a content snapshot: good ones mixed with wrong types, sizes and formats. */
const snapshotFields = fc.record(
  {
    identity: fc.oneof(fc.constant('alice'), nastyString, anyValue, fc.constant('x'.repeat(1025))),
    public_key: fc.oneof(
      fc.constant(encodeBase64(ownerKey.publicKey.spki)),
      badBase64(encodeBase64(ownerKey.publicKey.spki)),
      anyValue,
      fc.constant(encodeBase64(new Uint8Array(5000))),
    ),
    version: fc.oneof(fc.constant('5.0'), anyValue),
    created_at: fc.oneof(fc.constant(1_700_000_000), hugeNumber.map(Number), anyValue),
    previous_card_id: fc.oneof(badId, anyValue, fc.constant('f'.repeat(64))),
    extra: anyValue,
  },
  { requiredKeys: [] },
);

/** Snapshot JSON text: serialised fields, or hand-written with huge numbers or duplicate keys. */
const snapshotText = fc.oneof(
  snapshotFields.map((fields) => JSON.stringify(fields)),
  fc
    .tuple(hugeNumber, fc.constantFrom('created_at', 'version', 'identity', 'public_key'))
    .map(
      ([n, key]) =>
        `{"identity":"alice","public_key":"${encodeBase64(ownerKey.publicKey.spki)}","version":"5.0","created_at":1700000000,"${key}":${n}}`,
    ),
  fc
    .tuple(snapshotFields, snapshotFields)
    .map(([a, b]) => `${JSON.stringify(a).slice(0, -1)},${JSON.stringify(b).slice(1)}`),
  fc.nat({ max: 3000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
);

/** A card body whose snapshot is self-signed over whatever bytes it holds. */
const signedBody = fc
  .tuple(snapshotText, fc.oneof(fc.constant('ok'), fc.constant('bare'), fc.constant('other')))
  .map(([text, how]) => {
    const bytes = utf8(text);
    const der = signParts(ownerKey, bytes);
    const signature =
      how === 'bare' ? encodeBase64(der.subarray(der.byteLength - 64)) : encodeBase64(der);
    const signatures = [{ signer: 'self', signature }];
    if (how === 'other') signatures.push({ signer: 'service', signature });
    let identity = 'alice';
    try {
      const parsed = JSON.parse(text) as { identity?: unknown };
      if (typeof parsed.identity === 'string' && parsed.identity !== '') identity = parsed.identity;
    } catch {
      // not JSON: the token's identity does not matter
    }
    return {
      identity,
      body: JSON.stringify({ content_snapshot: encodeBase64(bytes), signatures }),
    };
  });

/** A valid card with one part made wrong. */
const brokenCard = validCard.chain((card) => {
  const { content_snapshot: snapshot, signatures } = card.raw;
  const signature = signatures[0]?.signature ?? '';
  return fc.oneof(
    badBase64(snapshot).map((s) => ({ content_snapshot: s, signatures })),
    badBase64(signature).map((s) => ({
      content_snapshot: snapshot,
      signatures: [{ signer: 'self', signature: s }],
    })),
    badBase64(signature).map((s) => ({
      content_snapshot: snapshot,
      signatures: [...signatures, { signer: 'other', signature, snapshot: s }],
    })),
    anyValue.map((v) => ({ content_snapshot: v, signatures })),
    anyValue.map((v) => ({ content_snapshot: snapshot, signatures: v })),
    anyValue.map((v) => ({ content_snapshot: snapshot, signatures: [v] })),
    fc.tuple(anyValue, anyValue, anyValue).map(([signer, sig, extra]) => ({
      content_snapshot: snapshot,
      signatures: [{ signer, signature: sig, snapshot: extra }],
    })),
    fc.array(fc.constant(signatures[0]), { minLength: 2, maxLength: 10 }).map((list) => ({
      content_snapshot: snapshot,
      signatures: list,
    })),
    anyValue,
  );
});

const bodyText: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: brokenCard.map((value) => JSON.stringify(value) ?? 'undefined') },
  { weight: 2, arbitrary: mutatedText(validCard.map((card) => JSON.stringify(card.raw))) },
  { weight: 1, arbitrary: nastyString },
  { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
  {
    weight: 1,
    arbitrary: validCard.map(
      (c) =>
        `{"content_snapshot":"${c.raw.content_snapshot}","signatures":${JSON.stringify(c.raw.signatures)},"content_snapshot":"AAAA"}`,
    ),
  },
  {
    weight: 1,
    arbitrary: fc
      .nat({ max: 20_000 })
      .chain((n) =>
        fc.constantFrom(
          `${'['.repeat(n)}${']'.repeat(n)}`,
          `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`,
          `{"content_snapshot":${'['.repeat(n)}${']'.repeat(n)}}`,
        ),
      ),
  },
  { weight: 1, arbitrary: hugeNumber.map((n) => `{"content_snapshot":"x","signatures":${n}}`) },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 65_537 - 40, max: 200_000 })
      .map((n) => `{"content_snapshot":"${'A'.repeat(n)}"}`),
  },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', '{}', '[]', 'null', '"x"', '\ufeff{}', '{}{}') },
);

const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8',
      'Application/JSON',
      'application/json; charset=latin1',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/jsonx',
      'application/problem+json',
      '',
      undefined,
    ),
  },
);

const searchBody = fc.oneof(
  fc.record({ identities: fc.oneof(fc.array(anyValue, { maxLength: 60 }), anyValue) }),
  fc.record({ identity: anyValue }),
  fc.array(nastyString, { minLength: 51, maxLength: 70 }).map((identities) => ({ identities })),
  fc.record({ identity: anyValue, identities: anyValue }),
  anyValue,
);

// ---------------------------------------------------------------------------------------------
// In-process: inject against an app over a real JSON-file store
// ---------------------------------------------------------------------------------------------

interface Harness {
  app: FastifyInstance;
  store: JsonStore;
  token(identity: string): Promise<string>;
}

const opened: { dir: string; app: FastifyInstance; store: JsonStore }[] = [];
after(async () => {
  for (const { dir, app, store } of opened) {
    await app.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

async function harness(): Promise<Harness> {
  const dir = makeTempDir('cards-fuzz-');
  const store = await JsonStore.open({ path: join(dir, 'cards.json') });
  const profile = PROFILES.service;
  const registry = createRegistry({ store, serviceKey: generatePrivateKey(), signer: 'service' });
  const auth = createAuthenticator({ keys: [{ key: appKey.publicKey }], scheme: profile.scheme });
  const app = await createApp({ registry, profile, auth, version: 'fuzz' });
  opened.push({ dir, app, store });
  const tokens = new Map<string, Promise<string>>();
  const token = (identity: string): Promise<string> => {
    let known = tokens.get(identity);
    if (!known) tokens.set(identity, (known = mint(appKey, identity)));
    return known;
  };
  return { app, store, token };
}

const mint = async (key: PrivateKey, identity: string): Promise<string> =>
  mintToken({ key, identity, now: Date.now(), ttlSeconds: 3600 });

interface Sent {
  method: string;
  url: string;
  body?: string | Buffer;
  contentType?: string;
  identity?: string | null;
}

/** Sends one request and checks the property; returns the status. */
async function check(h: Harness, sent: Sent, baseline: { bytes: string }): Promise<number> {
  const headers: Record<string, string> = {};
  if (sent.identity !== null)
    headers.authorization = `Service ${await h.token(sent.identity ?? 'alice')}`;
  if (sent.contentType !== undefined) headers['content-type'] = sent.contentType;
  const response = await h.app.inject({
    method: sent.method as 'GET',
    url: sent.url,
    headers,
    ...(sent.body !== undefined && { payload: sent.body }),
  });
  const what = `${sent.method} ${sent.url.slice(0, 100)} ${String(sent.body).slice(0, 200)}`;
  assert.ok(response.statusCode < 500, `${what}: ${response.statusCode} ${response.body}`);
  if (response.statusCode >= 400) {
    if (sent.method !== 'HEAD') seen.add(errorCodeOf(response.statusCode, response.body, what));
    assert.equal(storeBytes(h.store.paths), baseline.bytes, `${what}: store untouched`);
  } else {
    baseline.bytes = storeBytes(h.store.paths);
  }
  return response.statusCode;
}

const RUNS = 750;
/** Error codes the generated requests reached (printed, so a weakened generator shows). */
const seen = new Set<ErrorCode>();
after(() => console.log(`# fuzz reached ${seen.size} codes: ${[...seen].sort().join(' ')}`));

describe('bad input through inject (fast-check, fixed seed)', () => {
  test('create and revoke with garbage, mutated, wrongly typed and oversized bodies', async (t) => {
    const h = await harness();
    const baseline = { bytes: storeBytes(h.store.paths) };
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('', '/actions/revoke'),
        fc.constantFrom(...PREFIXES),
        bodyText,
        contentType,
        async (route, prefix, body, type) => {
          const status = await check(
            h,
            { method: 'POST', url: `${prefix}${route}`, body, contentType: type },
            baseline,
          );
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
        },
      ),
      { seed: SEED, numRuns: RUNS * 2 },
    );
    for (const status of [400, 413, 415]) assert.ok(statuses.has(status), `reached ${status}`);
    t.diagnostic(`statuses: ${JSON.stringify([...statuses].sort())}`);
  });

  test('create and revoke with self-signed snapshots of every wrong shape', async () => {
    const h = await harness();
    const baseline = { bytes: storeBytes(h.store.paths) };
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('', '/actions/revoke'),
        fc.constantFrom(...PREFIXES),
        signedBody,
        async (route, prefix, { identity, body }) => {
          await check(
            h,
            {
              method: 'POST',
              url: `${prefix}${route}`,
              body,
              contentType: 'application/json',
              identity,
            },
            baseline,
          );
        },
      ),
      { seed: SEED, numRuns: RUNS * 2 },
    );
  });

  test('get, search and revoke by id with bad ids and bad queries; unknown paths and methods', async () => {
    const h = await harness();
    const baseline = { bytes: storeBytes(h.store.paths) };
    // A stored chain, so that valid ids exist next to the bad ones.
    const stored = makeCard('alice');
    await check(
      h,
      {
        method: 'POST',
        url: '/card/v5',
        body: JSON.stringify(stored.raw),
        contentType: 'application/json',
      },
      baseline,
    );
    const request = fc.oneof(
      fc.tuple(fc.constantFrom(...PREFIXES), badId).map(([p, id]) => ({
        method: 'GET',
        url: `${p}/${id}`,
      })),
      fc.tuple(fc.constantFrom(...PREFIXES), badId, fc.option(bodyText)).map(([p, id, body]) => ({
        method: 'POST',
        url: `${p}/actions/revoke/${id}`,
        ...(body !== null && { body, contentType: 'application/json' }),
      })),
      fc.tuple(fc.constantFrom(...PREFIXES), bodyText).map(([p, body]) => ({
        method: 'POST',
        url: `${p}/actions/revoke/${stored.id}`,
        body,
        contentType: 'application/json',
      })),
      fc.tuple(fc.constantFrom(...PREFIXES), searchBody, contentType).map(([p, body, type]) => ({
        method: 'POST',
        url: `${p}/actions/search`,
        body: JSON.stringify(body) ?? '',
        contentType: type,
      })),
      fc
        .tuple(
          fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'),
          fc.constantFrom(
            '/',
            '/health',
            '/card',
            '/card/v5',
            '/card/v6',
            '/v5/card/actions',
            '/card/v5/actions/search/x',
            '/card/v5/actions/revoke/',
            `/card/v5/${stored.id}/x`,
            '/%zz',
            '/card/%',
            '/card/v5/actions/%2e%2e/search',
            '//card//v5',
            '/card/v5?x=%zz',
            `/card/v5/${stored.id}?a=1&a=2`,
            `/card/v5/${'a'.repeat(2000)}`,
          ),
          fc.option(bodyText),
        )
        .map(([method, url, body]) => ({
          method,
          url,
          ...(body !== null &&
            method !== 'GET' &&
            method !== 'HEAD' && {
              body,
              contentType: 'application/json',
            }),
        })),
    );
    await fc.assert(
      fc.asyncProperty(request, fc.boolean(), async (sent, anonymous) => {
        const status = await check(h, { ...sent, ...(anonymous && { identity: null }) }, baseline);
        // The one write these requests can make: revoking the stored card by id ({} or empty).
        if (status < 300 && sent.method === 'POST' && !sent.url.includes('/actions/search'))
          assert.equal(sent.url.split('?')[0]?.endsWith(`/actions/revoke/${stored.id}`), true);
      }),
      { seed: SEED, numRuns: RUNS * 2 },
    );
  });

  // Every id on the wire is lowercase hex. An id in a path is looked up in
  // either case (as today); a previous_card_id in any other case is refused (40014) in create
  // and revoke alike, since the stock client links chains by exact string.
  test('ids in upper and mixed case: path ids case-tolerant, previous_card_id refused', async () => {
    const h = await harness();
    const baseline = { bytes: storeBytes(h.store.paths) };
    const stored = makeCard('alice');
    await check(
      h,
      {
        method: 'POST',
        url: '/card/v5',
        body: JSON.stringify(stored.raw),
        contentType: 'application/json',
      },
      baseline,
    );
    // Ids of a few stored cards, each with at least one letter to change the case of.
    const cased = fc
      .tuple(fc.array(fc.boolean(), { minLength: 64, maxLength: 64 }), fc.boolean())
      .map(([mask, all]) => {
        const upper = [...stored.id].map((c, i) => (all || mask[i] ? c.toUpperCase() : c)).join('');
        return upper === stored.id ? stored.id.toUpperCase() : upper;
      });
    const request = fc.oneof(
      fc.tuple(fc.constantFrom(...PREFIXES), cased).map(([p, id]) => ({
        kind: 'get' as const,
        sent: { method: 'GET', url: `${p}/${id}` } as Sent,
      })),
      fc.tuple(fc.constantFrom(...PREFIXES), cased).map(([p, id]) => ({
        kind: 'create' as const,
        sent: {
          method: 'POST',
          url: p,
          body: JSON.stringify(
            cardFromFields(fieldsFor('alice', ownerKey, { previous_card_id: id }), ownerKey).raw,
          ),
          contentType: 'application/json',
        },
      })),
      fc.tuple(fc.constantFrom(...PREFIXES), cased).map(([p, id]) => ({
        kind: 'revoke' as const,
        sent: {
          method: 'POST',
          url: `${p}/actions/revoke`,
          body: JSON.stringify(
            cardFromFields(
              fieldsFor('alice', stored.key, { public_key: '', previous_card_id: id }),
              stored.key,
            ).raw,
          ),
          contentType: 'application/json',
        },
      })),
    );
    const kinds = new Set<string>();
    await fc.assert(
      fc.asyncProperty(request, async ({ kind, sent }: { kind: string; sent: Sent }) => {
        kinds.add(kind);
        const response = await h.app.inject({
          method: sent.method as 'GET',
          url: sent.url,
          headers: {
            authorization: `Service ${await h.token('alice')}`,
            ...(sent.contentType && { 'content-type': sent.contentType }),
          },
          ...(sent.body !== undefined && { payload: sent.body }),
        });
        const what = `${kind} ${sent.url} ${response.statusCode} ${response.body}`;
        if (kind === 'get') {
          assert.equal(response.statusCode, 200, what);
          return;
        }
        assert.equal(response.statusCode, 400, what);
        assert.equal(errorCodeOf(response.statusCode, response.body, what), 'PREVIOUS_ID_INVALID');
        assert.equal(storeBytes(h.store.paths), baseline.bytes, `${what}: store untouched`);
      }),
      { seed: SEED, numRuns: RUNS / 5 },
    );
    assert.deepEqual([...kinds].sort(), ['create', 'get', 'revoke']);
    // The same body with the id in lowercase is taken: the refusal is the case, nothing else;
    // and revoke by id takes the new card's id in uppercase.
    const headers = {
      authorization: `Service ${await h.token('alice')}`,
      'content-type': 'application/json',
    };
    const next = cardFromFields(
      fieldsFor('alice', ownerKey, { previous_card_id: stored.id }),
      ownerKey,
    );
    const created = await h.app.inject({
      method: 'POST',
      url: '/card/v5',
      headers,
      payload: JSON.stringify(next.raw),
    });
    assert.equal(created.statusCode < 300, true, created.body);
    const revoked = await h.app.inject({
      method: 'POST',
      url: `/card/v5/actions/revoke/${next.id.toUpperCase()}`,
      headers,
      payload: '{}',
    });
    assert.equal(revoked.statusCode < 300, true, revoked.body);
  });

  test('invalid UTF-8 and binary bodies', async () => {
    const h = await harness();
    const baseline = { bytes: storeBytes(h.store.paths) };
    const card = makeCard('alice');
    const prefix = Buffer.from(`{"content_snapshot":"${card.raw.content_snapshot}","signatures":`);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/card/v5', '/card/v5/actions/search', '/card/v5/actions/revoke'),
        fc.oneof(
          fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
          fc.uint8Array({ maxLength: 40 }).map((bytes) => Buffer.concat([prefix, bytes])),
          fc.constantFrom(
            Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]),
            Buffer.from('{"identity":"\xff\xfe"}', 'latin1'),
            Buffer.from([0x7b, 0x22, 0xc0, 0xaf, 0x22, 0x3a, 0x31, 0x7d]),
            Buffer.from('{"identities":["\ud800"]}', 'utf16le'),
          ),
        ),
        async (url, body) => {
          await check(h, { method: 'POST', url, body, contentType: 'application/json' }, baseline);
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Over a real socket: a server on a real port
// ---------------------------------------------------------------------------------------------

test('bad input over a real socket: raw requests to a server on a real port', async (t) => {
  const server = await startInProcess({ args: ['--quiet', '--request-timeout', '2'] });
  t.after(() => server.dispose());
  const token = await tokenFor(server, 'alice');
  const live = makeCard('alice');
  const created = await fetch(`${server.url}/card/v5`, {
    method: 'POST',
    headers: { authorization: `Service ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(live.raw),
  });
  assert.equal(created.status, 201);
  let baseline = storeBytes(server.paths);

  const head = (
    method: string,
    path: string,
    body: Buffer,
    type: string | undefined,
    framing: 'length' | 'chunked' | 'short',
    auth: boolean,
  ): Buffer => {
    const lines = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close'];
    if (auth) lines.push(`Authorization: Service ${token}`);
    if (type !== undefined) lines.push(`Content-Type: ${type}`);
    if (framing === 'chunked') {
      lines.push('Transfer-Encoding: chunked');
      const chunked = Buffer.concat([
        Buffer.from(`${body.byteLength.toString(16)}\r\n`),
        body,
        Buffer.from('\r\n0\r\n\r\n'),
      ]);
      return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), chunked]);
    }
    // 'short' declares fewer bytes than follow: the rest is a second, broken request.
    const length = framing === 'short' ? Math.floor(body.byteLength / 2) : body.byteLength;
    lines.push(`Content-Length: ${length}`);
    return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), body]);
  };

  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom('POST', 'GET', 'PUT', 'OPTIONS'),
      fc.oneof(
        fc.constantFrom(...PREFIXES),
        fc.constantFrom(...PREFIXES).map((p) => `${p}/actions/search`),
        fc.constantFrom(...PREFIXES).map((p) => `${p}/actions/revoke`),
        fc.tuple(fc.constantFrom(...PREFIXES), badId).map(([p, id]) => `${p}/${id}`),
        fc.tuple(fc.constantFrom(...PREFIXES), badId).map(([p, id]) => `${p}/actions/revoke/${id}`),
        fc.constant(`/card/v5/actions/revoke/${live.id}`),
      ),
      fc.oneof(
        bodyText.map((text) => Buffer.from(text)),
        fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
        searchBody.map((v) => Buffer.from(JSON.stringify(v) ?? '')),
      ),
      contentType,
      fc.constantFrom('length', 'length', 'chunked', 'short'),
      fc.boolean(),
      async (method, path, body, type, framing, auth) => {
        const { text } = await rawExchange(
          server.url,
          head(method, path, body, type, framing as 'length', auth),
        );
        const what = `${method} ${path.slice(0, 80)} ${body.toString().slice(0, 120)}`;
        const response = parseRawResponse(text);
        assert.ok(response, `${what}: an HTTP response (got ${JSON.stringify(text.slice(0, 80))})`);
        assert.ok(response.status < 500, `${what}: ${response.status} ${response.body}`);
        if (response.status >= 400) {
          errorCodeOf(response.status, response.body, what);
          assert.equal(storeBytes(server.paths), baseline, `${what}: store untouched`);
        } else if (method === 'POST' && !path.endsWith('/actions/search')) {
          // The one write these requests can make: revoking the live card by id ({} or empty).
          assert.ok(path.endsWith(`/actions/revoke/${live.id}`), `${what}: accepted`);
          baseline = storeBytes(server.paths);
        }
      },
    ),
    { seed: SEED, numRuns: 500 },
  );

  // Still serving, and the only card is the live one (or its revocation by id).
  const health = (await (await fetch(`${server.url}/health`)).json()) as { cards: number };
  assert.ok(health.cards === 1 || health.cards === 2, `cards: ${health.cards}`);
  await assert.doesNotReject(server.stop(), 'the server never crashed and stops cleanly');
});
