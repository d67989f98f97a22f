import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  parseRawCard,
  parseSignatures,
  reportSignatures,
  type RawSignature,
} from '../../src/core/card.js';
import { encodeBase64 } from '../../src/core/encoding.js';
import { type ErrorCode } from '../../src/core/errors.js';
import { buildSnapshot } from '../../src/core/snapshot.js';
import { ED25519_SPKI_PREFIX, wrapSignature } from '../../src/crypto/der.js';
import { generatePrivateKey } from '../../src/crypto/keys.js';
import { signCard, signEntry } from '../../src/crypto/sign-card.js';
import { verifyCardSignatures } from '../../src/crypto/verify-card.js';
import { codeOfSync as codeOf } from '../helpers/code-of.js';

const owner = generatePrivateKey();
const app = generatePrivateKey();
const snapshot = buildSnapshot({
  publicKey: owner.publicKey.spki,
  identity: 'alice',
  createdAt: 1700000000,
});
const options = { reservedSigner: 'service', requireSelf: true };
const sig = encodeBase64(new Uint8Array(83));

test('card bodies of the wrong shape are 30001', () => {
  for (const body of [
    null,
    [],
    'x',
    5,
    {},
    { content_snapshot: 5 },
    { content_snapshot: 'x', signatures: {} },
    { content_snapshot: 'x', signatures: 'x' },
  ]) {
    assert.equal(
      codeOf(() => parseRawCard(body)),
      'BODY_PARSE',
      JSON.stringify(body),
    );
  }
  assert.equal(
    codeOf(() => parseRawCard({ content_snapshot: 'x' })),
    'none',
  );
});

const cases: [string, unknown[] | undefined, ErrorCode | 'none'][] = [
  ['absent', undefined, 'SIGNATURES_EMPTY'],
  ['empty', [], 'SIGNATURES_EMPTY'],
  [
    'nine entries',
    Array.from({ length: 9 }, (_, i) => ({ signer: `s${i}`, signature: sig })),
    'SIGNATURES_TOO_MANY',
  ],
  ['no self', [{ signer: 'app', signature: sig }], 'SELF_SIGNATURE_MISSING'],
  [
    'two selves',
    [
      { signer: 'self', signature: sig },
      { signer: 'self', signature: sig },
    ],
    'SELF_SIGNATURE_DUPLICATE',
  ],
  ['entry not an object', ['self'], 'BODY_PARSE'],
  ['signer missing', [{ signature: sig }], 'SIGNER_INVALID'],
  ['signer a number', [{ signer: 1, signature: sig }], 'BODY_PARSE'],
  ['signer empty', [{ signer: '', signature: sig }], 'SIGNER_EMPTY'],
  ['signer too long', [{ signer: 'x'.repeat(1025), signature: sig }], 'SIGNER_TOO_LONG'],
  [
    'signer is the service',
    [
      { signer: 'self', signature: sig },
      { signer: 'service', signature: sig },
    ],
    'SIGNER_INVALID',
  ],
  ['signature missing', [{ signer: 'self' }], 'SIGNATURE_MISSING'],
  ['signature empty', [{ signer: 'self', signature: '' }], 'SIGNATURE_MISSING'],
  ['signature not base64', [{ signer: 'self', signature: 'a b c' }], 'SIGNATURE_NOT_BASE64'],
  ['signature a number', [{ signer: 'self', signature: 5 }], 'BODY_PARSE'],
  [
    'extra snapshot not base64',
    [{ signer: 'self', signature: sig, snapshot: '%%' }],
    'EXTRA_SNAPSHOT_INVALID',
  ],
  [
    'extra snapshot too long',
    [{ signer: 'self', signature: sig, snapshot: encodeBase64(new Uint8Array(1025)) }],
    'EXTRA_SNAPSHOT_TOO_LONG',
  ],
  [
    'one self and one app',
    [
      { signer: 'self', signature: sig },
      { signer: 'app', signature: sig, snapshot: 'AA==' },
    ],
    'none',
  ],
];

test('signature lists are checked in the deployed service order', () => {
  for (const [name, list, code] of cases)
    assert.equal(
      codeOf(() => parseSignatures(list, options)),
      code,
      name,
    );
  assert.equal(
    codeOf(() => parseSignatures(undefined, { ...options, requireSelf: false })),
    'none',
  );
});

test('verdicts: self verifies with the card key, others with trusted keys, unknown ones unchecked', async () => {
  const card = signCard(snapshot, {
    self: owner,
    others: [
      { signer: 'app', key: app, snapshot: new Uint8Array([1, 2]) },
      { signer: 'stranger', key: app },
    ],
  });
  const parsed = parseSignatures(card.signatures, options);
  const verdicts = await verifyCardSignatures(snapshot, parsed, {
    trusted: new Map([['app', app.publicKey]]),
  });
  assert.deepEqual(
    verdicts.map((v) => [v.signer, v.status]),
    [
      ['self', 'valid'],
      ['app', 'valid'],
      ['stranger', 'unchecked'],
    ],
  );
  const wrongKey = await verifyCardSignatures(snapshot, parsed, {
    trusted: new Map([['app', owner.publicKey]]),
  });
  assert.equal(wrongKey[1]?.status, 'invalid');
});

test('a bare 64-byte signature gets an invalid verdict that says why', async () => {
  const entry = signEntry(snapshot, { signer: 'self', key: owner });
  const bare: RawSignature = {
    signer: 'self',
    signature: encodeBase64(Buffer.from(entry.signature, 'base64').subarray(19)),
  };
  const [verdict] = await verifyCardSignatures(snapshot, parseSignatures([bare], options));
  assert.equal(verdict?.status, 'invalid');
  assert.match(verdict?.reason ?? '', /bare 64-byte/);
});

test('any flipped bit in the snapshot, extra snapshot or signature makes the verdict invalid', async () => {
  const extra = new Uint8Array([7, 7, 7, 7]);
  const entry = signEntry(snapshot, { signer: 'self', key: owner, snapshot: extra });
  const signature = new Uint8Array(Buffer.from(entry.signature, 'base64'));
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 0, max: 2 }), fc.nat(), async (where, bit) => {
      const parts = [
        new Uint8Array(snapshot.bytes),
        new Uint8Array(extra),
        new Uint8Array(signature),
      ];
      const target = parts[where] as Uint8Array;
      // Flip inside the signature value, not its fixed DER prefix (that is a format error, tested above).
      const offset =
        where === 2 ? 19 + (Math.floor(bit / 8) % 64) : Math.floor(bit / 8) % target.byteLength;
      target[offset]! ^= 1 << (bit % 8);
      const [snap, ex, sg] = parts as [Uint8Array, Uint8Array, Uint8Array];
      const mutated = { ...snapshot, bytes: snap };
      const [verdict] = await verifyCardSignatures(mutated, [
        { signer: 'self', signature: sg, snapshot: ex, raw: entry },
      ]);
      assert.equal(verdict?.status, 'invalid');
    }),
    { numRuns: 300 },
  );
});

test('reportSignatures lists the list problems and the first problem of each entry', () => {
  const list = [
    { signer: '', signature: sig },
    { signer: 'app' },
    { signer: 'self', signature: '%%' },
    { signer: 'x', signature: sig },
  ];
  const report = reportSignatures(list, options);
  assert.deepEqual(
    report.problems.map((p) => [p.field, p.error.code]),
    [
      ['signatures[0]', 'SIGNER_EMPTY'],
      ['signatures[1]', 'SIGNATURE_MISSING'],
      ['signatures[2]', 'SIGNATURE_NOT_BASE64'],
    ],
  );
  assert.equal(report.entries.filter((e) => 'signature' in e).length, 1);
  for (const [name, input, code] of cases) {
    const first = reportSignatures(input, options).problems[0]?.error.code ?? 'none';
    assert.equal(first, code, name);
  }
});

test('a card whose key is a small-order point gets an invalid self verdict, even for the trivial signature', async () => {
  const identityPoint = new Uint8Array(32);
  identityPoint[0] = 1;
  const spki = new Uint8Array([...ED25519_SPKI_PREFIX, ...identityPoint]);
  const weak = buildSnapshot({ publicKey: spki, identity: 'mallory', createdAt: 1700000000 });
  const trivial = new Uint8Array(64);
  trivial[0] = 1; // R = identity, S = 0: OpenSSL verifies it for any message under this key
  const entry = { signer: 'self', signature: encodeBase64(wrapSignature(trivial)) };
  const [verdict] = await verifyCardSignatures(weak, parseSignatures([entry], options));
  assert.equal(verdict?.status, 'invalid');
  assert.match(verdict?.reason ?? '', /small-order/);
});
