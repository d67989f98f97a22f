// Faults on purpose (`cards faults add`) as the stock clients meet them: virgil-sdk's
// CardManager meets the expired-token row (401, code 20304) on a get, renews its token and
// succeeds, and the request journal (`cards requests`) holds both requests.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { describeRun, runCards } from '../lib/cli.mjs';
import { startServer } from '../lib/server.mjs';
import { makeApp, makeCardManager, uniqueIdentity, virgilCrypto } from '../lib/stock.mjs';

const app = makeApp();
let server;

before(async () => {
  server = await startServer({ jwtKeys: [app.publicKeyBase64] });
});
after(async () => {
  await server?.stop();
});

/** `cards ARGS --url URL` (the loopback server's admin API needs no token); exit 0 asserted. */
async function cards(args) {
  const all = [...args, '--url', server.url, '--compat', 'virgil'];
  const r = await runCards(all);
  assert.equal(r.status, 0, describeRun(all, r));
  return r;
}

describe('faults as virgil-sdk meets them', () => {
  test('TOKEN_EXPIRED on the next get: CardManager renews its token once and gets the card', async () => {
    const identity = uniqueIdentity('expiring');
    const contexts = [];
    const manager = makeCardManager({
      url: server.url,
      serviceKey: server.serviceKey,
      getJwt: (context) => {
        contexts.push(context);
        return app.token(identity);
      },
    });
    const keyPair = virgilCrypto.generateKeys();
    const published = await manager.publishCard({
      identity,
      privateKey: keyPair.privateKey,
      publicKey: keyPair.publicKey,
    });

    await cards([
      'faults',
      'add',
      '--route',
      'getCard',
      '--error',
      'TOKEN_EXPIRED',
      '--count',
      '1',
    ]);
    contexts.length = 0;
    const card = await manager.getCard(published.id);
    assert.equal(card.id, published.id);
    assert.equal(card.identity, identity);
    // The first token, then the renewed one the 401 20304 asked for.
    assert.equal(contexts.length, 2, JSON.stringify(contexts));
    assert.ok(!contexts[0].forceReload, JSON.stringify(contexts));
    assert.equal(contexts[1].forceReload, true, JSON.stringify(contexts));

    const journal = JSON.parse(
      (await cards(['requests', '--route', 'getCard', '--json'])).stdout,
    ).requests;
    const gets = journal.filter((r) => r.path.endsWith(published.id));
    assert.deepEqual(
      gets.map((r) => [r.status, r.fault === undefined ? null : r.fault]).sort(),
      [
        [200, null],
        [401, 'fault 1: TOKEN_EXPIRED'],
      ],
      JSON.stringify(journal),
    );
    const list = JSON.parse((await cards(['faults', 'list', '--json'])).stdout);
    assert.deepEqual(
      list.faults.map((f) => [f.route, f.hits, f.remaining]),
      [['getCard', 1, 0]],
    );
  });
});
