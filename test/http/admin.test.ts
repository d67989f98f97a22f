/**
 * The admin API through fastify's inject, every response checked against the
 * OpenAPI document (contract.ts): the admin token both ways (and a card token refused), the
 * loopback-open mode with its Host and Origin checks, pages and cursors, an identity's history,
 * export → import round trip, reset, the request journal (never a token), /metrics, --no-admin.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { codeForWire, WIRE_ERRORS, type WireCode } from '../../src/core/errors.js';
import { PROFILES } from '../../src/core/profile.js';
import { generatePrivateKey } from '../../src/crypto/keys.js';
import { mintToken } from '../../src/crypto/tokens.js';
import { createApp, type AdminAppOptions } from '../../src/http/app.js';
import { createAuthenticator } from '../../src/http/auth.js';
import { createRegistry } from '../../src/registry/registry.js';
import { MemoryStore } from '../../src/store/memory/memory-store.js';
import { checkContract } from '../helpers/contract.js';
import { makeCard, makeRevocation } from './card-kit.js';

const appKey = generatePrivateKey();
const serviceKey = generatePrivateKey();
const TOKEN = 'cards_admin_0123456789abcdef0123456789';
const seen = new Set<WireCode>();

async function harness(admin: Partial<AdminAppOptions> | false = {}) {
  const profile = PROFILES.service;
  const store = new MemoryStore();
  const registry = createRegistry({ store, serviceKey, signer: profile.signer });
  const app = await createApp({
    registry,
    profile,
    auth: createAuthenticator({ keys: [{ key: appKey.publicKey }], scheme: profile.scheme }),
    version: 'test',
    ...(admin && {
      admin: {
        token: TOKEN,
        loopbackOpen: false,
        serviceKey: serviceKey.publicKey.toBase64(),
        ...admin,
      },
    }),
  });
  const cardToken = async (identity: string): Promise<string> =>
    mintToken({ key: appKey, identity, now: Date.now(), ttlSeconds: 600 });
  const call = async (
    method: InjectOptions['method'],
    url: string,
    options: { body?: string; type?: string; headers?: Record<string, string> } = {},
  ): Promise<LightMyRequestResponse> => {
    const headers: Record<string, string> = {
      authorization: `Bearer ${TOKEN}`,
      ...(options.type && { 'content-type': options.type }),
      ...options.headers,
    };
    if (headers.authorization === '') delete headers.authorization;
    const response = await app.inject({
      method,
      url,
      headers,
      ...(options.body !== undefined && { payload: options.body }),
    });
    checkContract('service', {
      method: String(method),
      url,
      status: response.statusCode,
      headers: response.headers,
      body: response.body,
    });
    if (response.statusCode >= 400) {
      const code = codeForWire(response.json<{ code: string }>().code) as WireCode;
      assert.equal(WIRE_ERRORS[code].status, response.statusCode);
      seen.add(code);
    }
    return response;
  };
  /** Creates a card, or revokes with a revoking card (makeRevocation). */
  const create = async (card: { raw: unknown }, identity: string): Promise<void> => {
    const revoking = !('key' in card);
    const response = await app.inject({
      method: 'POST',
      url: revoking ? '/card/v5/actions/revoke' : '/card/v5',
      headers: { authorization: `Service ${await cardToken(identity)}` },
      payload: card.raw as object,
    });
    assert.equal(response.statusCode, revoking ? 200 : 201, response.body);
  };
  return { app, store, registry, call, create, cardToken };
}

const codeOf = (response: LightMyRequestResponse): WireCode | number =>
  response.statusCode < 400
    ? response.statusCode
    : (codeForWire(response.json<{ code: string }>().code) as WireCode);

describe('admin token', () => {
  test('Bearer admin token in; none, a wrong one or a card token out (401)', async () => {
    const h = await harness();
    const card = `Service ${await h.cardToken('alice')}`;
    assert.equal(codeOf(await h.call('GET', '/_cards/info')), 200);
    for (const [authorization, code] of [
      ['', 'ADMIN_AUTH_MISSING'],
      ['Bearer nope-nope-nope-nope', 'ADMIN_TOKEN_INVALID'],
      [card, 'ADMIN_TOKEN_INVALID'],
      [`Basic ${TOKEN}`, 'ADMIN_TOKEN_INVALID'],
    ] as const)
      for (const url of ['/_cards/cards', '/metrics', '/_cards/requests'])
        assert.equal(codeOf(await h.call('GET', url, { headers: { authorization } })), code);
  });

  test('the admin token is refused on card routes (401), a card token still works', async () => {
    const h = await harness();
    const a = makeCard('alice');
    await h.create(a, 'alice');
    for (const authorization of [`Bearer ${TOKEN}`, `Service ${TOKEN}`])
      assert.equal(
        codeOf(await h.call('GET', `/card/v5/${a.id}`, { headers: { authorization } })),
        'ADMIN_TOKEN_ON_CARD_ROUTE',
      );
    const ok = await h.call('GET', `/card/v5/${a.id}`, {
      headers: { authorization: `Service ${await h.cardToken('alice')}` },
    });
    assert.equal(ok.statusCode, 200);
  });

  test('loopback-open: no token needed from a loopback Host and the same Origin only', async () => {
    const h = await harness({ loopbackOpen: true });
    const none = { authorization: '' };
    const open = (headers: Record<string, string>) =>
      h.call('GET', '/_cards/info', { headers: { ...none, ...headers } });
    assert.equal(codeOf(await open({ host: '127.0.0.1:8080' })), 200);
    assert.equal(codeOf(await open({ host: 'localhost:8080' })), 200);
    assert.equal(codeOf(await open({ host: '[::1]:8080' })), 200);
    assert.equal(
      codeOf(await open({ host: '127.0.0.1:8080', origin: 'http://127.0.0.1:8080' })),
      200,
    );
    assert.equal(
      codeOf(await open({ host: '127.0.0.1:8080', origin: 'https://evil.example' })),
      'ADMIN_AUTH_MISSING',
    );
    assert.equal(codeOf(await open({ host: 'evil.example:8080' })), 'ADMIN_AUTH_MISSING');
    const info = (await open({ host: '127.0.0.1' })).json<{ admin_auth: string }>();
    assert.equal(info.admin_auth, 'loopback-open');
    // A card token is still refused, even where no token is needed.
    const card = `Service ${await h.cardToken('alice')}`;
    assert.equal(
      codeOf(await open({ host: '127.0.0.1', authorization: card })),
      'ADMIN_TOKEN_INVALID',
    );
  });

  test('--no-admin: the admin routes, the page and /metrics are unknown paths', async () => {
    const h = await harness(false);
    for (const url of ['/_cards/cards', '/metrics', '/', '/openapi.json', '/docs'])
      assert.equal(codeOf(await h.call('GET', url)), 'ROUTE_NOT_FOUND');
    assert.equal((await h.call('GET', '/health')).statusCode, 200);
  });
});

describe('listing and history', () => {
  test('cards: insertion order with states, cursor pages stable while cards are added', async () => {
    const h = await harness();
    const a1 = makeCard('alice');
    await h.create(a1, 'alice');
    const a2 = makeCard('alice', { previousCardId: a1.id });
    await h.create(a2, 'alice');
    const b = makeCard('bob');
    await h.create(b, 'bob');
    const first = (await h.call('GET', '/_cards/cards?limit=2')).json<{
      cards: { id: string; state: string; successor: string | null }[];
      next_cursor: string;
    }>();
    assert.deepEqual(
      first.cards.map((c) => [c.id, c.state, c.successor]),
      [
        [a1.id, 'superseded', a2.id],
        [a2.id, 'active', null],
      ],
    );
    const revoke = makeRevocation('bob', b.id);
    await h.create(revoke, 'bob');
    const next = (await h.call('GET', `/_cards/cards?limit=2&cursor=${first.next_cursor}`)).json<{
      cards: { id: string; state: string }[];
      next_cursor: string | null;
    }>();
    assert.deepEqual(
      next.cards.map((c) => [c.id, c.state]),
      [
        [b.id, 'revoked'],
        [revoke.id, 'revocation'],
      ],
    );
    const last = await h.call('GET', `/_cards/cards?limit=2&cursor=${next.next_cursor}`);
    assert.deepEqual(last.json(), { cards: [], next_cursor: null });
    for (const url of [
      '/_cards/cards?limit=0',
      '/_cards/cards?limit=1001',
      '/_cards/cards?limit=x',
      '/_cards/cards?cursor=-1',
      '/_cards/cards?cursor=abc',
      '/_cards/cards?prefix=xyz',
      `/_cards/cards?prefix=${'0'.repeat(65)}`,
      '/_cards/cards?limit=1&limit=2',
      '/_cards/identities?limit=5000',
      '/_cards/requests?limit=0',
    ])
      assert.equal(codeOf(await h.call('GET', url)), 'QUERY_INVALID', url);
  });

  test('cards by id prefix: in id order, any case, the cursor the last id', async () => {
    const h = await harness();
    const made = [makeCard('pia'), makeCard('pia', { createdAt: 1_700_000_001 }), makeCard('pim')];
    for (const [i, card] of made.entries()) await h.create(card, i < 2 ? 'pia' : 'pim');
    type Page = { cards: { id: string; identity: string }[]; next_cursor: string | null };
    const [one] = made as [(typeof made)[0]];
    const short = await h.call('GET', `/_cards/cards?prefix=${one.id.slice(0, 8).toUpperCase()}`);
    assert.deepEqual(
      short.json<Page>().cards.map((c) => [c.id, c.identity]),
      [[one.id, 'pia']],
    );
    const ids = made.map((card) => card.id).sort();
    const digit = (ids[0] as string).slice(0, 1);
    const same = ids.filter((id) => id.startsWith(digit));
    const first = (await h.call('GET', `/_cards/cards?prefix=${digit}&limit=1`)).json<Page>();
    assert.deepEqual(
      first.cards.map((c) => c.id),
      same.slice(0, 1),
    );
    assert.equal(first.next_cursor, same[0]);
    const rest = await h.call('GET', `/_cards/cards?prefix=${digit}&cursor=${first.next_cursor}`);
    assert.deepEqual(
      rest.json<Page>().cards.map((c) => c.id),
      same.slice(1),
    );
    const none = await h.call('GET', `/_cards/cards?prefix=${'f'.repeat(64)}`);
    assert.deepEqual(none.json(), { cards: [], next_cursor: null });
  });

  test('identities: counts, prefix, cursor; history: chains, states, dates, signatures', async () => {
    const h = await harness();
    const a1 = makeCard('alice', { createdAt: 1_700_000_100 });
    await h.create(a1, 'alice');
    const a2 = makeCard('alice');
    await h.create(a2, 'alice');
    await h.create(makeRevocation('alice', a2.id), 'alice');
    await h.create(makeCard('alina'), 'alina');
    await h.create(makeCard('bob'), 'bob');
    const all = (await h.call('GET', '/_cards/identities')).json<{
      identities: { identity: string; cards: number; live_chains: number }[];
    }>();
    assert.deepEqual(all.identities[0], {
      identity: 'alice',
      cards: 3,
      live_chains: 1,
      revoked_chains: 1,
    });
    const al = (await h.call('GET', '/_cards/identities?prefix=al&limit=1')).json<{
      identities: { identity: string }[];
      next_cursor: string;
    }>();
    assert.deepEqual(
      al.identities.map((i) => i.identity),
      ['alice'],
    );
    const more = (
      await h.call('GET', `/_cards/identities?prefix=al&limit=1&cursor=${al.next_cursor}`)
    ).json<{ identities: { identity: string }[] }>();
    assert.deepEqual(
      more.identities.map((i) => i.identity),
      ['alina'],
    );

    const history = (await h.call('GET', '/_cards/identities/alice')).json<{
      chains: {
        revoked: boolean;
        cards: { id: string; state: string; created_at: number; signatures: unknown[] }[];
      }[];
    }>();
    assert.deepEqual(
      history.chains.map((c) => [c.revoked, c.cards.map((card) => card.state)]),
      [
        [false, ['active']],
        [true, ['revoked', 'revocation']],
      ],
    );
    assert.equal(history.chains[0]?.cards[0]?.created_at, 1_700_000_100);
    assert.equal(history.chains[0]?.cards[0]?.signatures.length, 2);
    assert.equal(codeOf(await h.call('GET', '/_cards/identities/nobody')), 'IDENTITY_NOT_FOUND');
    const odd = 'ü ser/with?odd#chars';
    await h.create(makeCard(odd), odd);
    const found = await h.call('GET', `/_cards/identities/${encodeURIComponent(odd)}`);
    assert.equal(found.json<{ identity: string }>().identity, odd);
  });
});

describe('history kept between requests (JSON and memory stores), never stale', () => {
  type History = { chains: { revoked: boolean; cards: { id: string; state: string }[] }[] };
  const shape = (body: string): [boolean, string[]][] =>
    (JSON.parse(body) as History).chains.map((c) => [c.revoked, c.cards.map((card) => card.id)]);

  test('after a create, a replacement, a revocation, a reset and an import', async () => {
    const h = await harness();
    const history = async (): Promise<string> => {
      const response = await h.call('GET', '/_cards/identities/alice');
      assert.equal(response.statusCode, 200);
      return response.body;
    };
    const a1 = makeCard('alice');
    await h.create(a1, 'alice');
    const first = await history();
    assert.equal(await history(), first, 'the same bytes again');
    assert.deepEqual(shape(first), [[false, [a1.id]]]);
    await h.create(makeCard('bob'), 'bob');
    assert.equal(await history(), first, 'another identity changes nothing');
    const a2 = makeCard('alice', { previousCardId: a1.id });
    await h.create(a2, 'alice');
    assert.deepEqual(shape(await history()), [[false, [a1.id, a2.id]]]);
    const b1 = makeCard('alice');
    await h.create(b1, 'alice');
    assert.deepEqual(shape(await history()), [
      [false, [a1.id, a2.id]],
      [false, [b1.id]],
    ]);
    const revocation = makeRevocation('alice', a2.id);
    await h.create(revocation, 'alice');
    const before = await history();
    assert.deepEqual(shape(before), [
      [true, [a1.id, a2.id, revocation.id]],
      [false, [b1.id]],
    ]);
    assert.deepEqual(
      (JSON.parse(before) as History).chains[0]?.cards.map((card) => card.state),
      ['revoked', 'revoked', 'revocation'],
    );
    const exported = (await h.call('GET', '/_cards/export')).body;
    await h.call('POST', '/_cards/reset', {
      body: '{"confirm":"reset"}',
      type: 'application/json',
    });
    assert.equal(codeOf(await h.call('GET', '/_cards/identities/alice')), 'IDENTITY_NOT_FOUND');
    const imported = await h.call('POST', '/_cards/import', {
      body: exported,
      type: 'application/x-ndjson',
    });
    assert.equal(imported.statusCode, 200, imported.body);
    assert.equal(await history(), before, 'the imported registry answers the same bytes');
  });

  test('after a reset, the first card of the identity again is the new one', async () => {
    const h = await harness();
    const old = makeCard('alice');
    await h.create(old, 'alice');
    assert.deepEqual(shape((await h.call('GET', '/_cards/identities/alice')).body), [
      [false, [old.id]],
    ]);
    await h.call('POST', '/_cards/reset', {
      body: '{"confirm":"reset"}',
      type: 'application/json',
    });
    const fresh = makeCard('alice');
    await h.create(fresh, 'alice');
    assert.deepEqual(shape((await h.call('GET', '/_cards/identities/alice')).body), [
      [false, [fresh.id]],
    ]);
  });
});

/** A stored record whose self signature is someone else's bytes (a flipped bit). */
function withBadSelfSignature(line: string): unknown {
  const card = JSON.parse(line) as { signatures: { signer: string; signature: string }[] };
  for (const sig of card.signatures)
    if (sig.signer === 'self') {
      const bytes = Buffer.from(sig.signature, 'base64');
      bytes[0] = (bytes[0] as number) ^ 1;
      sig.signature = bytes.toString('base64');
    }
  return card;
}

describe('export, import, reset', () => {
  test('export → reset → import gives the same registry; refusals name the line', async () => {
    const h = await harness();
    const a1 = makeCard('alice');
    await h.create(a1, 'alice');
    await h.create(makeCard('alice', { previousCardId: a1.id }), 'alice');
    const b = makeCard('bob');
    await h.create(b, 'bob');
    await h.create(makeRevocation('bob', b.id), 'bob');
    const exported = await h.call('GET', '/_cards/export');
    assert.match(exported.headers['content-type'] as string, /^application\/x-ndjson/);
    const lines = exported.body.trimEnd().split('\n');
    assert.equal(lines.length, 4);
    const ndjson = { type: 'application/x-ndjson' };

    assert.equal(
      codeOf(await h.call('POST', '/_cards/import', { ...ndjson, body: exported.body })),
      'IMPORT_NOT_EMPTY',
    );
    assert.equal(
      codeOf(await h.call('POST', '/_cards/reset', { type: 'application/json', body: '{}' })),
      'RESET_NOT_CONFIRMED',
    );
    const reset = await h.call('POST', '/_cards/reset', {
      type: 'application/json',
      body: '{"confirm":"reset"}',
    });
    assert.deepEqual(reset.json(), { cards: 0 });
    assert.equal(await h.registry.count(), 0);

    // A line that fails among others: the refusal says how many cards were stored.
    const cut = `${lines[0]}\n${lines[1]}\n${lines[1]}\n${lines[2]}\n`;
    const stopped = await h.call('POST', '/_cards/import', { ...ndjson, body: cut });
    assert.equal(codeOf(stopped), 'PREVIOUS_SUPERSEDED');
    assert.match(
      stopped.json<{ message: string }>().message,
      /^line 3: .*\(3 cards stored: they stay/,
    );
    assert.equal(await h.registry.count(), 3, 'the lines written with it stored too');
    // A rerun with append completes it: the cards stored already, identically, are skipped.
    const completed = await h.call('POST', '/_cards/import?append=true', {
      ...ndjson,
      body: exported.body,
    });
    assert.deepEqual(completed.json(), {
      imported: 1,
      skipped: 3,
      keyknox: { imported: 0, skipped: 0 },
      cards: 4,
    });
    assert.equal((await h.call('GET', '/_cards/export')).body, exported.body);

    // Appending a card whose id is stored with other bytes: the store's own rule refuses it.
    const other = JSON.parse(lines[0] as string) as {
      signatures: { signer: string; signature: string }[];
    };
    // Another signer's entry before the service's: a list a create could have sent.
    const self = other.signatures.find((sig) => sig.signer === 'self')!;
    other.signatures.splice(-1, 0, { signer: 'app', signature: self.signature });
    const again = await h.call('POST', '/_cards/import?append=true', {
      ...ndjson,
      body: `${JSON.stringify(other)}\n`,
    });
    assert.equal(codeOf(again), 'SNAPSHOT_NOT_UNIQUE');
    assert.match(
      again.json<{ message: string }>().message,
      /^line 1: .*\(0 cards stored, 0 already there: /,
    );

    await h.call('POST', '/_cards/reset', {
      type: 'application/json',
      body: '{"confirm":"reset"}',
    });
    const tampered = JSON.parse(lines[0] as string) as { identity: string };
    tampered.identity = 'mallory';
    for (const body of [
      'not json\n',
      `${JSON.stringify(tampered)}\n`,
      `${JSON.stringify({ ...JSON.parse(lines[0] as string), id: 'a'.repeat(64) })}\n`,
      `${JSON.stringify(withBadSelfSignature(lines[0] as string))}\n`,
    ])
      assert.equal(
        codeOf(await h.call('POST', '/_cards/import', { ...ndjson, body })),
        'IMPORT_INVALID',
      );
    // A replacement before the card it replaces: the chain rule, with its line number.
    const outOfOrder = await h.call('POST', '/_cards/import', {
      ...ndjson,
      body: `${lines[1]}\n${lines[0]}\n`,
    });
    assert.equal(codeOf(outOfOrder), 'PREVIOUS_NOT_FOUND');
    assert.equal(
      codeOf(await h.call('POST', '/_cards/import?append=maybe', { ...ndjson, body: '' })),
      'QUERY_INVALID',
    );
    assert.equal(
      codeOf(await h.call('POST', '/_cards/import', { type: 'text/plain', body: 'x' })),
      'UNSUPPORTED_MEDIA_TYPE',
    );
    // A JSON body is not a dump: a 4xx that says what is, never a 500.
    const before = await h.registry.count();
    for (const body of ['{"a":1}', '[1]', '5']) {
      const json = await h.call('POST', '/_cards/import', { type: 'application/json', body });
      assert.equal(json.statusCode, 415, body);
      assert.match(json.json<{ message: string }>().message, /application\/x-ndjson/);
    }
    assert.equal(await h.registry.count(), before, 'nothing stored by a refused import');
    // No content type at all: 415 saying what the route takes, not "must be application/json".
    const untyped = await h.call('POST', '/_cards/import', { body: `${lines[0]}\n` });
    assert.equal(untyped.statusCode, 415, untyped.body);
    assert.equal(codeOf(untyped), 'UNSUPPORTED_MEDIA_TYPE');
    const untypedSays = untyped.json<{ message: string }>().message;
    assert.match(untypedSays, /application\/x-ndjson/);
    assert.doesNotMatch(untypedSays, /must be application\/json/);
    assert.equal(await h.registry.count(), before, 'nothing stored by an untyped import');
    await h.call('POST', '/_cards/reset', {
      type: 'application/json',
      body: '{"confirm":"reset"}',
    });
    // One line longer than any card record: 413 naming the line, the lines before it stored.
    const long = await h.call('POST', '/_cards/import', {
      ...ndjson,
      body: `${lines[0]}\n${'x'.repeat(200 * 1024)}\n`,
    });
    assert.equal(long.statusCode, 413);
    assert.equal(codeOf(long), 'IMPORT_LINE_TOO_LONG');
    assert.match(long.json<{ message: string }>().message, /line 2 is longer than/);
    assert.equal(await h.registry.count(), 1);
  });
});

describe('request journal and metrics', () => {
  test('the journal keeps the last requests without tokens; bounded', async () => {
    const h = await harness({ journalSize: 5 });
    const token = await h.cardToken('alice');
    const a = makeCard('alice');
    await h.app.inject({
      method: 'POST',
      url: '/card/v5',
      headers: { authorization: `Service ${token}` },
      payload: a.raw as object,
    });
    await h.app.inject({ method: 'GET', url: `/card/v5/${'f'.repeat(64)}?t=${token}` });
    const journal = await h.call('GET', '/_cards/requests?limit=5');
    const { requests, total } = journal.json<{
      requests: { method: string; path: string; status: number; code: string | null }[];
      total: number;
    }>();
    assert.equal(total, 2); // the journal's own reads are not journaled
    assert.deepEqual(
      requests.map((r) => [r.method, r.path, r.status, r.code]),
      [
        ['GET', `/card/v5/${'f'.repeat(64)}`, 401, '20300'],
        ['POST', '/card/v5', 201, null],
      ],
    );
    assert.ok(!journal.body.includes(token), 'a token in the journal');
    assert.ok(!journal.body.includes(TOKEN), 'the admin token in the journal');
    assert.match(journal.body, /"identity":"alice"/);
    for (let i = 0; i < 8; i++) await h.call('GET', '/health');
    const bounded = (await h.call('GET', '/_cards/requests?limit=5')).json<{
      requests: unknown[];
      total: number;
    }>();
    assert.equal(bounded.requests.length, 5);
    assert.equal(bounded.total, 10);
  });

  test('a path the router refuses (a malformed escape) is journaled and counted once', async () => {
    const h = await harness();
    const refused = await h.app.inject({ method: 'GET', url: '/card/v5/%E0%A4%A' });
    assert.equal(refused.statusCode, 400);
    const { requests } = (await h.call('GET', '/_cards/requests?limit=5')).json<{
      requests: { method: string; path: string; status: number; code: string | null }[];
    }>();
    assert.deepEqual(
      requests.map((r) => [r.method, r.path, r.status, r.code]),
      [['GET', '/card/v5/%E0%A4%A', 400, '10008']],
    );
    const text = (await h.call('GET', '/metrics')).body;
    assert.match(text, /^cards_http_requests_total\{route="unknown",status="400"\} 1$/m);
  });

  test('/metrics: requests by route and status, latency histogram, cards by state, writes', async () => {
    const h = await harness();
    const a = makeCard('alice');
    await h.create(a, 'alice');
    await h.create(makeCard('alice', { previousCardId: a.id }), 'alice');
    await h.call('GET', `/card/v5/${'0'.repeat(64)}`);
    const text = (await h.call('GET', '/metrics')).body;
    assert.match(text, /^cards_http_requests_total\{route="createCard",status="201"\} 2$/m);
    assert.match(text, /^cards_http_requests_total\{route="getCard",status="401"\} 1$/m);
    assert.match(
      text,
      /^cards_http_request_duration_seconds_bucket\{route="createCard",le="\+Inf"\} 2$/m,
    );
    assert.match(text, /^cards_store_write_duration_seconds_count 2$/m);
    assert.match(text, /^cards_cards\{state="active"\} 1$/m);
    assert.match(text, /^cards_cards\{state="superseded"\} 1$/m);
    // Every sample line is "name{labels} number" (the text format's grammar, roughly).
    for (const line of text.trimEnd().split('\n'))
      assert.match(line, /^(# (HELP|TYPE) .+|[a-z_]+(\{[^}]*\})? [0-9.e+-]+)$/, line);
  });
});

test('every admin code was reached', () => {
  const admin = (Object.keys(WIRE_ERRORS) as WireCode[]).filter((code) =>
    [10101, 10102, 20320, 20321, 20322, 30100, 30101, 30102, 30103].includes(
      WIRE_ERRORS[code].wire,
    ),
  );
  assert.deepEqual(
    admin.filter((code) => !seen.has(code)),
    [],
  );
});
