/**
 * Known answers for every key type the stock crypto library can publish
 * (fixtures/stock-client-key-types.json, made by interop/make-key-type-fixtures.mjs with
 * virgil-sdk 6.2.0 / virgil-crypto 5.1.2): our verifier must accept each stock self signature,
 * refuse it after any tampering, and refuse the key types that cannot sign, naming them.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { test } from 'node:test';
import { parseRawCard, parseSignatures, type CardSignature } from '../../src/core/card.js';
import { cardIdOf } from '../../src/core/card-id.js';
import { decodeBase64 } from '../../src/core/encoding.js';
import { CardsError } from '../../src/core/errors.js';
import { buildSnapshot, decodeSnapshot, type Snapshot } from '../../src/core/snapshot.js';
import { readCardKey } from '../../src/crypto/card-key.js';
import { verifyCardSignatures } from '../../src/crypto/verify-card.js';
import { checkSelfSignature } from '../../src/registry/self-signature.js';
import { readFixture } from '../helpers/fixtures.js';

interface KeyTypeFixture {
  cards: {
    key_type: string;
    identity: string;
    card: { content_snapshot: string; signatures: { signer: string; signature: string }[] };
    card_id: string;
    public_key_bytes: number;
    self_signature_bytes: number;
    tampered_signature_base64: string;
  }[];
  unsignable: { key_type: string; public_key_base64: string }[];
}

const fixture = readFixture<KeyTypeFixture>('stock-client-key-types.json');
const EXPECTED: Record<string, { type: string; algorithm: RegExp; key: number; sig: number }> = {
  ED25519: { type: 'ed25519', algorithm: /^Ed25519$/, key: 44, sig: 83 },
  SECP256R1: { type: 'secp256r1', algorithm: /ECDSA P-256 with SHA-512/, key: 91, sig: 91 },
  RSA_2048: { type: 'rsa', algorithm: /RSA-2048 PSS with SHA-512/, key: 294, sig: 279 },
  RSA_3072: { type: 'rsa', algorithm: /RSA-3072 PSS/, key: 422, sig: 407 },
  RSA_4096: { type: 'rsa', algorithm: /RSA-4096 PSS/, key: 550, sig: 535 },
  RSA_8192: { type: 'rsa', algorithm: /RSA-8192 PSS/, key: 1062, sig: 1047 },
  CURVE25519_ED25519: {
    type: 'curve25519-ed25519',
    algorithm: /compound Curve25519/,
    key: 105,
    sig: 83,
  },
  CURVE25519_ROUND5_ED25519_FALCON: {
    type: 'curve25519-round5-ed25519-falcon',
    algorithm: /Falcon-512/,
    key: 1554,
    sig: 906,
  },
};

const options = { reservedSigner: 'virgil', requireSelf: true };
function selfOf(card: KeyTypeFixture['cards'][number]): {
  snapshot: Snapshot;
  self: CardSignature;
} {
  const raw = parseRawCard(card.card);
  const snapshot = decodeSnapshot(raw.content_snapshot, 'card');
  const [self] = parseSignatures(raw.signatures, options);
  assert.ok(self);
  return { snapshot, self };
}
const bytes = (base64: string): Uint8Array => decodeBase64(base64) as Uint8Array;

test('the fixture holds one stock card per signing key type, with the sizes the stock client makes', () => {
  assert.deepEqual(fixture.cards.map((c) => c.key_type).sort(), Object.keys(EXPECTED).sort());
  for (const card of fixture.cards) {
    const want = EXPECTED[card.key_type];
    const { snapshot, self } = selfOf(card);
    assert.equal(snapshot.publicKey.byteLength, want?.key, card.key_type);
    assert.equal(self.signature.byteLength, want?.sig, card.key_type);
    assert.equal(cardIdOf(snapshot.bytes), card.card_id, card.key_type);
  }
});

for (const card of fixture.cards) {
  const want = EXPECTED[card.key_type];
  test(`${card.key_type}: the stock self signature verifies, naming the algorithm`, async () => {
    const { snapshot, self } = selfOf(card);
    const key = readCardKey(snapshot.publicKey);
    assert.equal(key.type, want?.type);
    assert.match(key.algorithm, want?.algorithm ?? /./);
    const [verdict] = await verifyCardSignatures(snapshot, [self]);
    assert.equal(verdict?.status, 'valid', verdict?.reason);
    assert.match(verdict?.algorithm ?? '', want?.algorithm ?? /./);
    await checkSelfSignature(snapshot, self); // the registry's rule agrees
  });

  test(`${card.key_type}: a tampered signature, snapshot or extra snapshot is refused`, async () => {
    const { snapshot, self } = selfOf(card);
    const tampered = { ...self, signature: bytes(card.tampered_signature_base64) };
    const flipped = new Uint8Array(snapshot.bytes);
    flipped[flipped.length - 2]! ^= 1;
    const cases: [Snapshot, CardSignature][] = [
      [snapshot, tampered],
      [{ ...snapshot, bytes: flipped }, self],
      [snapshot, { ...self, snapshot: new Uint8Array([1]) }],
      [snapshot, { ...self, signature: self.signature.subarray(0, self.signature.length - 1) }],
    ];
    for (const [snap, entry] of cases) {
      const [verdict] = await verifyCardSignatures(snap, [entry]);
      assert.equal(verdict?.status, 'invalid', `${card.key_type}: ${verdict?.reason}`);
      await assert.rejects(
        async () => checkSelfSignature(snap, entry),
        (err: unknown) => {
          assert.ok(err instanceof CardsError);
          assert.equal(err.code, 'SIGNATURE_INVALID');
          return true;
        },
      );
    }
  });
}

test('Falcon hybrid: each half is checked (a valid Ed25519 half does not carry a broken Falcon half)', async () => {
  const card = fixture.cards.find((c) => c.key_type === 'CURVE25519_ROUND5_ED25519_FALCON');
  assert.ok(card);
  const { snapshot, self } = selfOf(card);
  // Layout (fixture-checked): 4-byte SEQUENCE header, 15-byte sha512 id, 4-byte OCTET STRING
  // header, 4-byte inner SEQUENCE header, then OCTET STRING(64) Ed25519, OCTET STRING(809) Falcon.
  const edStart = 4 + 15 + 4 + 4 + 2;
  for (const offset of [edStart + 10, self.signature.length - 300]) {
    const signature = new Uint8Array(self.signature);
    signature[offset]! ^= 0x04;
    const [verdict] = await verifyCardSignatures(snapshot, [{ ...self, signature }]);
    assert.equal(verdict?.status, 'invalid', `offset ${offset}`);
  }
});

test('a Curve25519 card and an unknown algorithm are refused with KEY_TYPE_UNSUPPORTED, naming the type', async () => {
  const x25519 = fixture.unsignable.find((k) => k.key_type === 'CURVE25519');
  assert.ok(x25519);
  const unknown = bytes('MBMwCQYHKoZIzj0CAQMGAAQBAgME'); // SPKI with OID 1.2.840.10045.2.1 and no curve
  const rsaPssOid = Uint8Array.from([...bytes(x25519.public_key_base64)]);
  rsaPssOid[8] = 0x71; // 1.3.101.113 (Ed448): a real algorithm, not a card key type
  for (const [publicKey, name] of [
    [bytes(x25519.public_key_base64), /Curve25519/],
    [unknown, /1\.2\.840\.10045\.2\.1/],
    [rsaPssOid, /1\.3\.101\.113/],
  ] as const) {
    const snapshot = buildSnapshot({ publicKey, identity: 'x', createdAt: 1700000000 });
    const self = {
      signer: 'self',
      signature: new Uint8Array(83),
      snapshot: new Uint8Array(0),
      raw: { signer: 'self', signature: '' },
    };
    await assert.rejects(
      async () => checkSelfSignature(snapshot, self),
      (err: unknown) => {
        assert.ok(err instanceof CardsError);
        assert.equal(err.code, 'KEY_TYPE_UNSUPPORTED');
        assert.match(err.message, name);
        return true;
      },
    );
    const [verdict] = await verifyCardSignatures(snapshot, [self]);
    assert.equal(verdict?.status, 'invalid');
    assert.match(verdict?.reason ?? '', name);
  }
});

test('the post-quantum verifier is only ever imported lazily (start-up and --version never load it)', () => {
  const src = new URL('../../../src/', import.meta.url);
  const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) =>
    f.endsWith('.ts'),
  );
  for (const file of files) {
    const text = readFileSync(new URL(file, src), 'utf8');
    assert.doesNotMatch(text, /^import[^;]*@noble\/post-quantum/m, file);
    assert.doesNotMatch(text, /from '@noble\/post-quantum/, file);
  }
});
