// Cards of every key type the stock crypto library can sign with, published,
// fetched, searched, rotated and revoked by the stock CardManager against
// `cards serve --compat virgil`, and e3kit-node with a non-default keyPairType. The server
// verifies each self signature (crypto/card-key.ts); a tampered one is refused with 40021.
// RSA keys are made by node:crypto and imported into virgil-crypto: the WASM engine takes
// ~35 s for one RSA-4096 key and minutes for RSA-8192; every signature is still the stock one.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { KeyPairType } from 'virgil-crypto';
import { RawSignedModel } from 'virgil-sdk';
import { startServer } from '../lib/server.mjs';
import {
  makeApp,
  makeCardManager,
  rejection,
  uniqueIdentity,
  virgilCrypto,
} from '../lib/stock.mjs';

if (typeof globalThis.fetch === 'function') {
  throw new Error('e3kit-node needs Node 20 run with --no-experimental-fetch (`npm test` does)');
}
const { EThree } = await import('@virgilsecurity/e3kit-node');

const app = makeApp();
const dirs = [];
let server;
const TYPES = [
  ['SECP256R1', 91],
  ['RSA_2048', 294],
  ['RSA_3072', 422],
  ['RSA_4096', 550],
  ['RSA_8192', 1062],
  ['CURVE25519_ED25519', 105],
  ['CURVE25519_ROUND5_ED25519_FALCON', 1554],
];

/** Two key pairs per type, made before any request: an RSA-8192 key takes seconds of
 * blocking work, long enough for the server to close the client's idle keep-alive sockets. */
const pairs = new Map();
before(async () => {
  for (const [type] of TYPES) pairs.set(type, [keyPair(type), keyPair(type)]);
  server = await startServer({ jwtKeys: [app.publicKeyBase64] });
});
after(async () => {
  await server?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function keyPair(type) {
  const rsa = /^RSA_(\d+)$/.exec(type);
  if (!rsa) return virgilCrypto.generateKeys(KeyPairType[type]);
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: Number(rsa[1]) });
  const imported = virgilCrypto.importPrivateKey(
    privateKey.export({ format: 'der', type: 'pkcs8' }),
  );
  return { privateKey: imported, publicKey: virgilCrypto.extractPublicKey(imported) };
}

const manager = (identity) =>
  makeCardManager({
    url: server.url,
    serviceKey: server.serviceKey,
    getJwt: () => app.token(identity),
  });

describe('stock CardManager: every key type', () => {
  for (const [type, keyBytes] of TYPES) {
    test(`${type}: publish, get, search, rotate, revoke`, async () => {
      const identity = uniqueIdentity(type.toLowerCase());
      const cards = manager(identity);
      const [first, second] = pairs.get(type);
      assert.equal(virgilCrypto.exportPublicKey(first.publicKey).length, keyBytes);
      const card = await cards.publishCard({ identity, ...first });
      assert.equal(card.identity, identity);
      assert.equal((await cards.getCard(card.id)).id, card.id);
      assert.deepEqual(
        (await cards.searchCards(identity)).map((c) => c.id),
        [card.id],
      );

      const rotated = await cards.publishCard({ identity, ...second, previousCardId: card.id });
      assert.equal(rotated.previousCardId, card.id);
      const [head] = await cards.searchCards(identity);
      assert.equal(head.id, rotated.id);
      assert.equal((await cards.getCard(card.id)).isOutdated, true);

      await cards.revokeCard(rotated.id);
      assert.deepEqual(await cards.searchCards(identity), []);
    });
  }

  test('a tampered self signature of each non-Ed25519 type is refused: 400 40021', async () => {
    for (const type of [
      'SECP256R1',
      'RSA_2048',
      'CURVE25519_ED25519',
      'CURVE25519_ROUND5_ED25519_FALCON',
    ]) {
      const identity = uniqueIdentity(`tampered-${type.toLowerCase()}`);
      const cards = manager(identity);
      const [pair] = pairs.get(type);
      const raw = cards.generateRawCard({ identity, ...pair });
      const json = raw.toJson();
      const signature = Buffer.from(json.signatures[0].signature, 'base64');
      signature[signature.length - 5] ^= 1;
      json.signatures[0].signature = signature.toString('base64');
      const err = await rejection(cards.publishRawCard(RawSignedModel.fromJson(json)));
      assert.equal(err.httpStatus, 400, `${type}: ${err.message}`);
      assert.equal(err.errorCode, 40021, `${type}: ${err.message}`);
    }
  });
});

describe('e3kit-node with a non-default keyPairType', () => {
  for (const keyPairType of ['CURVE25519_ROUND5_ED25519_FALCON', 'SECP256R1']) {
    test(`${keyPairType}: register, findUsers, authEncrypt, authDecrypt`, async () => {
      const device = async (identity) => {
        const dir = mkdtempSync(join(tmpdir(), 'cards-e3kit-'));
        dirs.push(dir);
        return EThree.initialize(async () => app.token(identity).toString(), {
          apiUrl: server.url,
          storageName: join(dir, 'keys'),
          groupStorageName: join(dir, 'groups'),
          keyPairType: KeyPairType[keyPairType],
        });
      };
      const alice = uniqueIdentity('alice');
      const bob = uniqueIdentity('bob');
      const aliceE3 = await device(alice);
      const bobE3 = await device(bob);
      await aliceE3.register();
      await bobE3.register();
      const [stored] = await manager(alice).searchCards(alice);
      assert.equal(stored.identity, alice);

      const bobCard = await aliceE3.findUsers(bob);
      const aliceCard = await bobE3.findUsers(alice);
      assert.equal(aliceCard.id, stored.id);
      const encrypted = await aliceE3.authEncrypt('post-quantum hello', bobCard);
      assert.equal(await bobE3.authDecrypt(encrypted, aliceCard), 'post-quantum hello');
      await aliceE3.unregister();
      await bobE3.unregister();
    });
  }
});
