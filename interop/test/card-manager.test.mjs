// virgil-sdk 6 CardManager (the vendor's stock client) against `cards serve --compat virgil`
// on a real loopback port: publish, get, search, rotate, revoke, and the errors the client
// switches on, and the expired-token row sent by a fault (`cards faults add`) on a get, which
// the CardManager answers by renewing its token.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ModelSigner } from 'virgil-sdk';
import { cardsAt } from '../lib/cli.mjs';
import { startServer } from '../lib/server.mjs';
import {
  cardCrypto,
  exportPublicKey,
  makeApp,
  makeCardManager,
  makeVerifier,
  rejection,
  uniqueIdentity,
  virgilCrypto,
} from '../lib/stock.mjs';

const app = makeApp();
let server;

before(async () => {
  server = await startServer({ jwtKeys: [app.publicKeyBase64] });
});
after(async () => {
  await server?.stop();
});

/** A CardManager whose every token is for `identity`. */
const managerFor = (identity, options = {}) =>
  makeCardManager({
    url: server.url,
    serviceKey: server.serviceKey,
    getJwt: () => app.token(identity),
    ...options,
  });

async function publish(identity, extra = {}) {
  const keyPair = virgilCrypto.generateKeys();
  const card = await managerFor(identity).publishCard({
    identity,
    privateKey: keyPair.privateKey,
    publicKey: keyPair.publicKey,
    ...extra,
  });
  return { card, keyPair };
}

/** Asserts that `err` is the stock client's VirgilHttpError with this status and numeric code. */
function assertHttpError(err, status, code) {
  assert.equal(err.name, 'VirgilHttpError', `expected VirgilHttpError, got ${err.stack ?? err}`);
  assert.equal(err.httpStatus, status, `status (message: ${err.message})`);
  assert.equal(err.errorCode, code, `code (message: ${err.message})`);
}

describe('CardManager against cards serve --compat virgil', () => {
  test('the server printed its URL and service key', () => {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(Buffer.from(server.serviceKey, 'base64').length, 44);
  });

  test('publish: the stored card comes back signed by "virgil" with the printed key', async () => {
    const identity = uniqueIdentity('alice');
    const { card, keyPair } = await publish(identity);
    assert.match(card.id, /^[0-9a-f]{64}$/);
    assert.equal(card.identity, identity);
    assert.equal(card.version, '5.0');
    assert.equal(card.isOutdated, false);
    assert.equal(card.previousCardId, undefined);
    assert.equal(exportPublicKey(card.publicKey), exportPublicKey(keyPair.publicKey));
    assert.deepEqual(card.signatures.map((s) => s.signer).sort(), ['self', 'virgil']);
    // publishCard already ran the whitelist verifier; make sure it really pins the key.
    assert.equal(makeVerifier(server.serviceKey).verifyCard(card), true);
    const stranger = exportPublicKey(virgilCrypto.generateKeys().publicKey);
    assert.equal(makeVerifier(stranger).verifyCard(card), false);
  });

  test('publish: extra snapshots and an extra signer survive the round trip', async () => {
    const identity = uniqueIdentity('carol');
    const manager = managerFor(identity);
    const keyPair = virgilCrypto.generateKeys();
    const appSigner = virgilCrypto.generateKeys();
    const raw = manager.generateRawCard({
      identity,
      privateKey: keyPair.privateKey,
      publicKey: keyPair.publicKey,
      extraFields: { device: 'laptop' },
    });
    new ModelSigner(cardCrypto).sign({
      model: raw,
      signerPrivateKey: appSigner.privateKey,
      signer: 'app',
      extraFields: { role: 'member' },
    });
    const card = await manager.publishRawCard(raw);
    const bySigner = Object.fromEntries(card.signatures.map((s) => [s.signer, s]));
    assert.deepEqual(Object.keys(bySigner).sort(), ['app', 'self', 'virgil']);
    assert.deepEqual(bySigner.self.extraFields, { device: 'laptop' });
    assert.deepEqual(bySigner.app.extraFields, { role: 'member' });
    const got = await manager.getCard(card.id);
    assert.equal(got.contentSnapshot, raw.contentSnapshot);
  });

  test('get: the card by id, not outdated', async () => {
    const identity = uniqueIdentity('bob');
    const { card, keyPair } = await publish(identity);
    // any identity may read any card
    const got = await managerFor(uniqueIdentity('reader')).getCard(card.id);
    assert.equal(got.id, card.id);
    assert.equal(got.identity, identity);
    assert.equal(got.isOutdated, false);
    assert.equal(got.contentSnapshot, card.contentSnapshot);
    assert.equal(exportPublicKey(got.publicKey), exportPublicKey(keyPair.publicKey));
    assert.deepEqual(got.signatures.map((s) => s.signer).sort(), ['self', 'virgil']);
  });

  test('search: one identity, many identities, unknown identities', async () => {
    const [a, b, c] = ['ann', 'ben', 'cid'].map(uniqueIdentity);
    const cards = {};
    for (const identity of [a, b, c]) cards[identity] = (await publish(identity)).card;
    const manager = managerFor(a);

    const one = await manager.searchCards(a);
    assert.deepEqual(
      one.map((card) => card.id),
      [cards[a].id],
    );
    const single = await manager.searchCards([b]);
    assert.deepEqual(
      single.map((card) => card.id),
      [cards[b].id],
    );

    const nobody = uniqueIdentity('nobody');
    const many = await manager.searchCards([a, b, c, nobody]);
    assert.deepEqual(many.map((card) => card.id).sort(), [a, b, c].map((i) => cards[i].id).sort());
    for (const card of many) assert.equal(card.isOutdated, false);

    assert.deepEqual(await manager.searchCards(nobody), []);
    assert.deepEqual(await manager.searchCards([nobody, uniqueIdentity('nobody')]), []);
  });

  test('search: 50 identities in one request', async () => {
    const identities = Array.from({ length: 50 }, (_, i) => uniqueIdentity(`many${i}`));
    const published = await Promise.all(identities.slice(0, 5).map((i) => publish(i)));
    const found = await managerFor(identities[0]).searchCards(identities);
    assert.deepEqual(
      found.map((card) => card.id).sort(),
      published.map(({ card }) => card.id).sort(),
    );
  });

  test('rotate with previousCardId: old card outdated, search links the chain', async () => {
    const identity = uniqueIdentity('dave');
    const manager = managerFor(identity);
    const { card: first } = await publish(identity);
    const { card: second } = await publish(identity, { previousCardId: first.id });
    assert.equal(second.previousCardId, first.id);
    assert.equal(second.isOutdated, false);

    assert.equal((await manager.getCard(first.id)).isOutdated, true);
    assert.equal((await manager.getCard(second.id)).isOutdated, false);

    const found = await manager.searchCards(identity);
    assert.equal(found.length, 1, 'only the newest card is left after linking');
    assert.equal(found[0].id, second.id);
    assert.equal(found[0].isOutdated, false);
    assert.equal(found[0].previousCard?.id, first.id);
    assert.equal(found[0].previousCard.isOutdated, true);

    // a second rotation: a chain of three, linked newest first
    const { card: third } = await publish(identity, { previousCardId: second.id });
    const again = await manager.searchCards(identity);
    assert.equal(again.length, 1);
    assert.equal(again[0].id, third.id);
    assert.equal(again[0].previousCard?.id, second.id);
    assert.equal(again[0].previousCard.previousCard?.id, first.id);

    // the superseded card cannot be replaced a second time
    const err = await rejection(publish(identity, { previousCardId: first.id }));
    assertHttpError(err, 400, 40037);
  });

  test('revoke: search is empty after, get still works', async () => {
    const identity = uniqueIdentity('erin');
    const manager = managerFor(identity);
    const { card } = await publish(identity);
    await manager.revokeCard(card.id);

    assert.deepEqual(await manager.searchCards(identity), []);
    const got = await manager.getCard(card.id);
    assert.equal(got.id, card.id);
    assert.equal(got.isOutdated, true, 'a revoked card is named by its revoking card');

    const err = await rejection(manager.revokeCard(card.id));
    assertHttpError(err, 403, 40310);
  });

  test('revoke a rotated chain: every card of it leaves search', async () => {
    const identity = uniqueIdentity('fay');
    const manager = managerFor(identity);
    const { card: first } = await publish(identity);
    const { card: second } = await publish(identity, { previousCardId: first.id });
    await manager.revokeCard(second.id);
    assert.deepEqual(await manager.searchCards(identity), []);
    assert.equal((await manager.getCard(first.id)).isOutdated, true);
    assert.equal((await manager.getCard(second.id)).isOutdated, true);
  });

  test('unknown id: VirgilHttpError 404 with code 10001 (a number)', async () => {
    const manager = managerFor('anyone');
    const err = await rejection(manager.getCard(randomBytes(32).toString('hex')));
    assertHttpError(err, 404, 10001);
    const revoking = await rejection(manager.revokeCard(randomBytes(32).toString('hex')));
    assertHttpError(revoking, 404, 10001);
  });

  test('search: more than 50 identities is refused with 40300', async () => {
    const identities = Array.from({ length: 51 }, (_, i) => `over-${i}`);
    assertHttpError(await rejection(managerFor('anyone').searchCards(identities)), 400, 40300);
  });

  test('a token for another identity is refused (40034) on publish and revoke', async () => {
    const alice = uniqueIdentity('alice');
    const mallory = managerFor(uniqueIdentity('mallory'));
    const keyPair = virgilCrypto.generateKeys();
    const raw = mallory.generateRawCard({
      identity: alice,
      privateKey: keyPair.privateKey,
      publicKey: keyPair.publicKey,
    });
    assertHttpError(await rejection(mallory.publishRawCard(raw)), 400, 40034);
    assert.deepEqual(await mallory.searchCards(alice), [], 'nothing was stored');

    const { card } = await publish(alice);
    assertHttpError(await rejection(mallory.revokeCard(card.id)), 400, 40034);
    const still = await mallory.searchCards(alice);
    assert.deepEqual(
      still.map((c) => c.id),
      [card.id],
    );
  });
});

const cards = (args) => cardsAt(server.url, args);

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
