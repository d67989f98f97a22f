/**
 * Every card key's cost is bounded before its signature is checked (crypto/card-key.ts): an
 * RSA key with a huge public exponent makes one check cost sixty times a normal one and more
 * (OpenSSL's verification grows with the exponent), so one replayed body could cut a server's
 * throughput tenfold. RSA keys are refused unless the exponent is 65537, what every stock client makes;
 * the refusal comes from reading the key, before any verification (bench/key-types.mjs shows
 * it costs what any other refusal costs).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CardsError } from '../../src/core/errors.js';
import { buildSnapshot } from '../../src/core/snapshot.js';
import { readCardKey } from '../../src/crypto/card-key.js';
import { verifyCardSignatures } from '../../src/crypto/verify-card.js';
import { checkSelfSignature } from '../../src/registry/self-signature.js';
import { bigExponent, der, rsaModulus, rsaSpki } from '../helpers/rsa-keys.js';

const modulus3072 = rsaModulus(3072);
const modulus2048 = rsaModulus(2048);

const refusedAsUnsupported = (pattern: RegExp) => (err: unknown) => {
  assert.ok(err instanceof CardsError, String(err));
  assert.equal(err.code, 'KEY_TYPE_UNSUPPORTED');
  assert.match(err.message, pattern);
  return true;
};

test('an RSA key with a 3,060-bit exponent is refused when it is read, before any verification', async () => {
  const hostile = rsaSpki(modulus3072, bigExponent(3060));
  assert.ok(hostile.byteLength <= 4096, 'within the public key limit: it reaches the key reader');
  assert.throws(() => readCardKey(hostile), refusedAsUnsupported(/exponent/));
  const snapshot = buildSnapshot({ publicKey: hostile, identity: 'x', createdAt: 1700000000 });
  const self = {
    signer: 'self',
    signature: new Uint8Array(407),
    snapshot: new Uint8Array(0),
    raw: { signer: 'self', signature: '' },
  };
  await assert.rejects(
    async () => checkSelfSignature(snapshot, self),
    refusedAsUnsupported(/65537/),
  );
  const [verdict] = await verifyCardSignatures(snapshot, [self]);
  assert.equal(verdict?.status, 'invalid');
  assert.match(verdict?.reason ?? '', /65537/);
});

test('RSA exponents other than 65537 are refused, small or large; 65537 is read', () => {
  for (const exponent of [3n, 17n, 65539n, (1n << 64n) + 1n, bigExponent(1024)])
    assert.throws(
      () => readCardKey(rsaSpki(modulus2048, exponent)),
      refusedAsUnsupported(/65537/),
      String(exponent),
    );
  assert.equal(readCardKey(rsaSpki(modulus2048, 65537n)).type, 'rsa');
  assert.equal(readCardKey(rsaSpki(modulus3072, 65537n)).type, 'rsa');
});

test('an RSA signature whose length is not the modulus length is invalid without being checked', () => {
  const key = readCardKey(rsaSpki(modulus2048, 65537n));
  const sha512 = Uint8Array.from(Buffer.from('300d06096086480165030402030500', 'hex'));
  const wrapped = (inner: Uint8Array) =>
    der(0x30, Uint8Array.from([...sha512, ...der(0x04, inner)]));
  for (const length of [255, 257, 512])
    assert.throws(
      () => key.verify(wrapped(new Uint8Array(length).fill(1)), new Uint8Array(1)),
      (err: unknown) => err instanceof CardsError && err.code === 'SIGNATURE_INVALID',
      String(length),
    );
  assert.equal(key.verify(wrapped(new Uint8Array(256).fill(1)), new Uint8Array(1)), false);
});
