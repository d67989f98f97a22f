// The stock client's tokens (VEDS512, made by virgil-sdk's JwtGenerator) against
// `cards serve --compat virgil --jwt-key …`: expiry and the client's one transparent retry
// (retryOnUnauthorized, status 401 + numeric code 20304 only), and the optional
// --app-id / --app-key-id checks.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startRecordingProxy } from '../lib/proxy.mjs';
import { startServer } from '../lib/server.mjs';
import {
  exportPublicKey,
  makeApp,
  makeCardManager,
  rejection,
  uniqueIdentity,
  virgilCrypto,
} from '../lib/stock.mjs';

const app = makeApp();
const nowSeconds = () => Math.floor(Date.now() / 1000);
/** Issued an hour ago with the SDK's default 20-minute lifetime: expired 40 minutes ago. */
const expiredToken = (identity) => app.token(identity, { issuedAt: nowSeconds() - 3600 });

let server; // checks iss and kid too
let proxy;

before(async () => {
  server = await startServer({
    jwtKeys: [app.publicKeyBase64],
    appId: app.appId,
    appKeyId: app.appKeyId,
  });
  proxy = await startRecordingProxy(server.url);
});
after(async () => {
  await proxy?.close();
  await server?.stop();
});

/** A CardManager talking through the recording proxy; records every token request. */
function recordedManager(tokenFor, options = {}) {
  const calls = [];
  const manager = makeCardManager({
    url: proxy.url,
    serviceKey: server.serviceKey,
    getJwt: (context) => {
      calls.push({ ...context });
      return tokenFor(calls.length, context);
    },
    ...options,
  });
  const start = proxy.requests.length;
  const sent = () => proxy.requests.slice(start).map((r) => `${r.method} ${r.path} ${r.status}`);
  return { manager, calls, sent };
}

function assertHttpError(err, status, code) {
  assert.equal(err.name, 'VirgilHttpError', `expected VirgilHttpError, got ${err.stack ?? err}`);
  assert.equal(err.httpStatus, status, `status (message: ${err.message})`);
  if (code !== undefined) assert.equal(err.errorCode, code, `code (message: ${err.message})`);
}

const newKeys = () => virgilCrypto.generateKeys();

describe('stock tokens', () => {
  test('a fresh stock token is accepted', async () => {
    const identity = uniqueIdentity('alice');
    const { manager, calls, sent } = recordedManager(() => app.token(identity));
    const keys = newKeys();
    const card = await manager.publishCard({ identity, ...keys });
    assert.equal(card.identity, identity);
    assert.deepEqual(sent(), ['POST /card/v5 201']);
    assert.equal(calls.length, 1);
    assert.match(proxy.requests.at(-1).authorization, /^Virgil [\w-]+\.[\w-]+\.[\w-]+$/);
  });

  test('an expired token: 401 with code 20304 as a JSON number', async () => {
    const identity = uniqueIdentity('bob');
    const { manager, calls, sent } = recordedManager(() => expiredToken(identity), {
      retryOnUnauthorized: false,
    });
    assertHttpError(await rejection(manager.searchCards(identity)), 401, 20304);
    assert.deepEqual(sent(), ['POST /card/v5/actions/search 401']);
    assert.equal(calls.length, 1);
  });

  test('an expired token is refreshed once, transparently (publish)', async () => {
    const identity = uniqueIdentity('carol');
    const { manager, calls, sent } = recordedManager((n) =>
      n === 1 ? expiredToken(identity) : app.token(identity),
    );
    const keys = newKeys();
    const card = await manager.publishCard({ identity, ...keys });
    assert.equal(card.identity, identity);
    assert.deepEqual(sent(), ['POST /card/v5 401', 'POST /card/v5 201']);
    assert.equal(calls.length, 2);
    assert.notEqual(calls[0].forceReload, true);
    assert.equal(calls[1].forceReload, true);
  });

  test('an expired token is refreshed once, transparently (get, search, revoke)', async () => {
    const identity = uniqueIdentity('dave');
    const owner = recordedManager(() => app.token(identity)).manager;
    const card = await owner.publishCard({ identity, ...newKeys() });

    for (const [operation, run, line] of [
      ['get', (m) => m.getCard(card.id), `GET /card/v5/${card.id}`],
      ['search', (m) => m.searchCards(identity), 'POST /card/v5/actions/search'],
      ['revoke', (m) => m.revokeCard(card.id), `POST /card/v5/actions/revoke/${card.id}`],
    ]) {
      const { manager, calls, sent } = recordedManager((n) =>
        n === 1 ? expiredToken(identity) : app.token(identity),
      );
      await run(manager);
      const statuses = sent();
      assert.equal(statuses.length, 2, `${operation}: ${statuses.join(', ')}`);
      assert.equal(statuses[0], `${line} 401`, operation);
      assert.match(statuses[1], new RegExp(`^${line} 20\\d$`), operation);
      assert.deepEqual(
        calls.map((c) => c.forceReload === true),
        [false, true],
        operation,
      );
    }
  });

  test('a token 1 s past its exp: 401 20304 (JSON number); CardManager retries exactly once with a fresh token', async () => {
    const identity = uniqueIdentity('just-expired');
    // 20-minute lifetime issued 1201 s ago: exp was 1 s ago. No leeway on exp.
    const justExpired = () => app.token(identity, { issuedAt: nowSeconds() - 1201 });
    const strict = recordedManager(() => justExpired(), { retryOnUnauthorized: false });
    assertHttpError(await rejection(strict.manager.searchCards(identity)), 401, 20304);
    assert.deepEqual(strict.sent(), ['POST /card/v5/actions/search 401']);

    const { manager, calls, sent } = recordedManager((n) =>
      n === 1 ? justExpired() : app.token(identity),
    );
    const card = await manager.publishCard({ identity, ...newKeys() });
    assert.equal(card.identity, identity);
    assert.deepEqual(sent(), ['POST /card/v5 401', 'POST /card/v5 201']);
    assert.deepEqual(
      calls.map((c) => c.forceReload === true),
      [false, true],
    );
  });

  test('--clock-skew 30 (and CARDS_CLOCK_SKEW) accepts a token 1 s past its exp, not 31 s', async () => {
    for (const how of [{ args: ['--clock-skew', '30'] }, { env: { CARDS_CLOCK_SKEW: '30' } }]) {
      const lenient = await startServer({ jwtKeys: [app.publicKeyBase64], ...how });
      try {
        const identity = uniqueIdentity('skewed');
        const token = (ago) => app.token(identity, { issuedAt: nowSeconds() - 1200 - ago });
        const manager = (ago) =>
          makeCardManager({
            url: lenient.url,
            serviceKey: lenient.serviceKey,
            getJwt: () => token(ago),
            retryOnUnauthorized: false,
          });
        assert.deepEqual(await manager(1).searchCards(identity), []);
        assertHttpError(await rejection(manager(31).searchCards(identity)), 401, 20304);
      } finally {
        await lenient.stop();
      }
    }
  });

  test('a refreshed token that is still expired is not retried a second time', async () => {
    const identity = uniqueIdentity('erin');
    const { manager, calls, sent } = recordedManager(() => expiredToken(identity));
    assertHttpError(await rejection(manager.searchCards(identity)), 401, 20304);
    assert.deepEqual(sent(), [
      'POST /card/v5/actions/search 401',
      'POST /card/v5/actions/search 401',
    ]);
    assert.equal(calls.length, 2);
  });

  test('--app-id: a token from another app id is refused (401, not retried)', async () => {
    const identity = uniqueIdentity('fay');
    const { manager, calls, sent } = recordedManager(() =>
      app.token(identity, { appId: 'ffffffffffffffffffffffffffffffff' }),
    );
    const err = await rejection(manager.searchCards(identity));
    assertHttpError(err, 401);
    assert.notEqual(err.errorCode, 20304);
    assert.equal(Math.floor(err.errorCode / 10), 2030, `a 2030x code, got ${err.errorCode}`);
    assert.deepEqual(sent(), ['POST /card/v5/actions/search 401']);
    assert.equal(calls.length, 1);
  });

  test('--app-key-id: a token with another kid is refused (401)', async () => {
    const identity = uniqueIdentity('gus');
    const { manager } = recordedManager(() => app.token(identity, { appKeyId: 'ab'.repeat(32) }));
    const err = await rejection(manager.searchCards(identity));
    assertHttpError(err, 401);
    assert.equal(Math.floor(err.errorCode / 10), 2030, `a 2030x code, got ${err.errorCode}`);
    assert.notEqual(err.errorCode, 20304);
  });

  test('a token signed by a key not given to --jwt-key is refused (401, 20303)', async () => {
    const identity = uniqueIdentity('hal');
    const stranger = newKeys();
    const { manager } = recordedManager(() =>
      app.token(identity, { privateKey: stranger.privateKey }),
    );
    assertHttpError(await rejection(manager.searchCards(identity)), 401, 20303);
  });

  test('without --app-id/--app-key-id any iss and kid signed by a trusted key pass', async () => {
    const other = makeApp();
    const open = await startServer({ jwtKeys: [app.publicKeyBase64, other.publicKeyBase64] });
    try {
      for (const token of [
        (identity) => app.token(identity, { appId: 'ab'.repeat(16), appKeyId: 'cd'.repeat(32) }),
        (identity) => other.token(identity),
      ]) {
        const identity = uniqueIdentity('ivy');
        const manager = makeCardManager({
          url: open.url,
          serviceKey: open.serviceKey,
          getJwt: () => token(identity),
        });
        const card = await manager.publishCard({ identity, ...newKeys() });
        assert.equal(card.identity, identity);
        assert.equal(exportPublicKey(card.publicKey).length, 60);
      }
    } finally {
      await open.stop();
    }
  });
});
