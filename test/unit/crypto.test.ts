import assert from 'node:assert/strict';
import { sign as nodeSign, verify as nodeVerify } from 'node:crypto';
import { test } from 'node:test';
import fc from 'fast-check';
import { ED25519_TORSION_SUBGROUP, ed25519 } from '@noble/curves/ed25519.js';
import { decodeHex, encodeBase64, encodeHex } from '../../src/core/encoding.js';
import { CardsError } from '../../src/core/errors.js';
import {
  ED25519_SPKI_PREFIX,
  SIGNATURE_LENGTH,
  isSmallOrderKey,
  unwrapSignature,
  wrapSignature,
} from '../../src/crypto/der.js';
import { sha512, signParts, verifyParts } from '../../src/crypto/ed25519.js';
import { createPublicKey } from 'node:crypto';
import {
  PrivateKey,
  PublicKey,
  generatePrivateKey,
  parsePrivateKey,
  parsePublicKey,
} from '../../src/crypto/keys.js';
import { readFixture } from '../helpers/fixtures.js';

interface Rfc8032 {
  secret_key_hex: string;
  public_key_hex: string;
  message_hex: string;
  signature_hex: string;
}
const rfc = readFixture<Rfc8032>('rfc8032.json');
const hex = (text: string): Uint8Array => decodeHex(text) as Uint8Array;

test('RFC 8032 7.1 test 1: node:crypto and @noble/curves agree with the RFC', () => {
  const key = PrivateKey.fromSeed(hex(rfc.secret_key_hex));
  assert.equal(encodeHex(key.publicKey.raw), rfc.public_key_hex);
  const message = hex(rfc.message_hex);
  assert.equal(encodeHex(nodeSign(null, message, key.keyObject)), rfc.signature_hex);
  assert.equal(encodeHex(ed25519.sign(message, key.seed)), rfc.signature_hex);
  assert.ok(
    ed25519.verify(hex(rfc.signature_hex), message, hex(rfc.public_key_hex), { zip215: false }),
  );
});

test('card signatures match @noble/curves byte for byte and verify both ways', () => {
  fc.assert(
    fc.property(
      fc.uint8Array({ minLength: 32, maxLength: 32 }),
      fc.uint8Array({ maxLength: 300 }),
      fc.uint8Array({ maxLength: 64 }),
      (seed, data, extra) => {
        const key = PrivateKey.fromSeed(seed);
        const der = signParts(key, data, extra);
        assert.equal(der.byteLength, SIGNATURE_LENGTH);
        const raw = unwrapSignature(der);
        const digest = sha512(data, extra);
        assert.deepEqual(raw, ed25519.sign(digest, seed));
        assert.ok(ed25519.verify(raw, digest, key.publicKey.raw, { zip215: false }));
        assert.ok(verifyParts(key.publicKey, der, data, extra));
      },
    ),
    { numRuns: 100 },
  );
});

test('any flipped bit in data, extra data or signature fails verification', () => {
  const key = generatePrivateKey();
  fc.assert(
    fc.property(
      fc.uint8Array({ minLength: 1, maxLength: 100 }),
      fc.uint8Array({ minLength: 1, maxLength: 40 }),
      fc.nat(),
      fc.integer({ min: 0, max: 2 }),
      (data, extra, bit, where) => {
        const der = signParts(key, data, extra);
        const target = [data, extra, der.subarray(19)][where] as Uint8Array;
        const copy = new Uint8Array(target);
        copy[Math.floor(bit / 8) % copy.byteLength]! ^= 1 << (bit % 8);
        const parts = [where === 0 ? copy : data, where === 1 ? copy : extra];
        const signature = where === 2 ? wrapSignature(copy) : der;
        assert.equal(verifyParts(key.publicKey, signature, ...parts), false);
        assert.equal(
          ed25519.verify(unwrapSignature(signature), sha512(...parts), key.publicKey.raw, {
            zip215: false,
          }),
          false,
        );
      },
    ),
    { numRuns: 150 },
  );
});

test('the DER wrapper is demanded: bare, truncated or wrong-OID signatures are refused', () => {
  const key = generatePrivateKey();
  const der = signParts(key, new Uint8Array([1, 2, 3]));
  assert.equal(encodeBase64(der).slice(0, 24), 'MFEwDQYJYIZIAWUDBAIDBQAE');
  const wrongOid = new Uint8Array(der);
  wrongOid[17] = 0x01; // sha256 instead of sha512
  for (const bad of [
    der.subarray(19),
    der.subarray(0, 82),
    wrongOid,
    new Uint8Array(0),
    new Uint8Array(200),
  ]) {
    assert.throws(
      () => verifyParts(key.publicKey, bad, new Uint8Array([1, 2, 3])),
      (err: unknown) => err instanceof CardsError && err.code === 'SIGNATURE_INVALID',
    );
  }
});

test('private keys: PEM PKCS#8 and base64 DER PKCS#8 are read; the rest refused naming the formats', () => {
  const key = generatePrivateKey();
  assert.deepEqual(parsePrivateKey(key.toPem()).pkcs8, key.pkcs8);
  assert.deepEqual(parsePrivateKey(key.toBase64()).pkcs8, key.pkcs8);
  assert.deepEqual(parsePrivateKey(`\n${key.toBase64()}\n`).pkcs8, key.pkcs8);
  assert.deepEqual(
    parsePrivateKey(key.keyObject.export({ format: 'pem', type: 'pkcs8' }).toString()).pkcs8,
    key.pkcs8,
  );
  for (const bad of [
    '',
    'hello',
    key.publicKey.toBase64(),
    key.publicKey.toPem(),
    encodeBase64(key.seed),
    '-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----',
  ]) {
    assert.throws(
      () => parsePrivateKey(bad),
      (err: unknown) =>
        err instanceof CardsError &&
        err.code === 'KEY_FORMAT' &&
        /PKCS#8/.test(`${err.message} ${err.hint ?? ''}`),
      JSON.stringify(bad),
    );
  }
});

test('public keys: base64 DER SPKI, PEM and JWK are read; others refused', () => {
  const key = generatePrivateKey().publicKey;
  assert.deepEqual(parsePublicKey(key.toBase64()).spki, key.spki);
  assert.deepEqual(parsePublicKey(key.toPem()).spki, key.spki);
  const jwk = JSON.stringify(key.keyObject.export({ format: 'jwk' }));
  assert.deepEqual(parsePublicKey(jwk).spki, key.spki);
  for (const bad of ['', 'nope', encodeBase64(key.raw), '{"kty":"RSA"}', '{not json']) {
    assert.throws(
      () => parsePublicKey(bad),
      (err: unknown) => err instanceof CardsError && err.code === 'KEY_FORMAT',
    );
  }
  assert.throws(
    () => PublicKey.fromSpki(new Uint8Array(44)),
    (err: unknown) => err instanceof CardsError && err.code === 'KEY_FORMAT',
  );
});

test('node verifies what noble signs (cross-check in the other direction)', () => {
  const seed = ed25519.utils.randomSecretKey();
  const key = PrivateKey.fromSeed(seed);
  const digest = sha512(new Uint8Array([9, 9]));
  assert.ok(nodeVerify(null, digest, key.publicKey.keyObject, ed25519.sign(digest, seed)));
});

test('small-order public keys are refused: OpenSSL would accept forged signatures for them', () => {
  for (const point of ED25519_TORSION_SUBGROUP) {
    const raw = hex(point);
    assert.ok(isSmallOrderKey(raw), point);
    const spki = new Uint8Array([...ED25519_SPKI_PREFIX, ...raw]);
    assert.throws(
      () => PublicKey.fromSpki(spki),
      (err: unknown) => err instanceof CardsError && err.code === 'KEY_FORMAT',
    );
  }
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (seed) => {
      assert.equal(isSmallOrderKey(PrivateKey.fromSeed(seed).publicKey.raw), false);
    }),
    { numRuns: 50 },
  );
});

test('small-order and non-canonical points are refused however the key comes in', () => {
  const nonCanonical = [
    `ed${'ff'.repeat(30)}7f`, // y = p
    `ff${'ff'.repeat(30)}7f`, // y = 2^255 - 1
    `f0${'ff'.repeat(31)}`, // y = p + 3, sign bit set
  ];
  const refused = (err: unknown): boolean =>
    err instanceof CardsError &&
    err.code === 'KEY_FORMAT' &&
    /small-order|non-canonical/.test(err.message);
  for (const point of [...ED25519_TORSION_SUBGROUP, ...nonCanonical]) {
    const raw = hex(point);
    const x = Buffer.from(raw).toString('base64url');
    const spki = new Uint8Array([...ED25519_SPKI_PREFIX, ...raw]);
    const pem = `-----BEGIN PUBLIC KEY-----\n${encodeBase64(spki)}\n-----END PUBLIC KEY-----`;
    const jwk = JSON.stringify({ kty: 'OKP', crv: 'Ed25519', x });
    for (const text of [encodeBase64(spki), pem, jwk])
      assert.throws(() => parsePublicKey(text), refused, `${point}: ${text}`);
    assert.throws(
      () =>
        PublicKey.fromKeyObject(
          createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' }),
        ),
      refused,
      point,
    );
  }
});
