import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  buildSnapshot,
  decodeSnapshot,
  encodeSnapshot,
  parseSnapshot,
  reportSnapshot,
  type SnapshotPurpose,
} from '../../src/core/snapshot.js';
import { cardIdOf } from '../../src/core/card-id.js';
import { encodeBase64, utf8 } from '../../src/core/encoding.js';
import { CardsError, type ErrorCode } from '../../src/core/errors.js';
import { generatePrivateKey } from '../../src/crypto/keys.js';
import { codeOfSync as codeOf } from '../helpers/code-of.js';

const key = generatePrivateKey().publicKey.spki;
const pk = encodeBase64(key);
const prev = 'ab'.repeat(32);

const b64json = (value: unknown): string => encodeBase64(utf8(JSON.stringify(value)));
const base = { public_key: pk, identity: 'alice', version: '5.0', created_at: 1700000000 };

test('build → encode → decode round-trips and keeps the bytes', () => {
  fc.assert(
    fc.property(
      fc.string({ minLength: 1, maxLength: 200 }).filter((s) => Buffer.byteLength(s) <= 1024),
      fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
      fc.option(
        fc.string({
          unit: fc.constantFrom(...'0123456789abcdef'),
          minLength: 64,
          maxLength: 64,
        }),
        { nil: undefined },
      ),
      (identity, createdAt, previousCardId) => {
        const built = buildSnapshot({ publicKey: key, identity, createdAt, previousCardId });
        const decoded = decodeSnapshot(encodeSnapshot(built), 'card');
        assert.deepEqual(decoded.bytes, built.bytes);
        assert.equal(decoded.identity, identity);
        assert.equal(decoded.createdAt, createdAt);
        assert.equal(decoded.previousCardId, previousCardId);
        assert.deepEqual(decoded.publicKey, key);
        assert.equal(cardIdOf(decoded.bytes), cardIdOf(built.bytes));
      },
    ),
    { numRuns: 200 },
  );
});

test('ids are computed over the bytes as received, whatever the key order', () => {
  const a = decodeSnapshot(b64json(base), 'card');
  const b = decodeSnapshot(
    b64json({ created_at: 1700000000, version: '5.0', identity: 'alice', public_key: pk }),
    'card',
  );
  assert.equal(a.identity, b.identity);
  assert.notEqual(cardIdOf(a.bytes), cardIdOf(b.bytes));
  assert.match(cardIdOf(a.bytes), /^[0-9a-f]{64}$/);
});

test('a revoking snapshot has an empty key and names its previous card', () => {
  const s = buildSnapshot({ identity: 'alice', previousCardId: prev, createdAt: 5 });
  assert.equal(s.publicKey.byteLength, 0);
  assert.equal(s.previousCardId, prev);
  assert.equal(
    codeOf(() =>
      decodeSnapshot(b64json({ ...base, public_key: '', previous_card_id: prev }), 'revocation'),
    ),
    'none',
  );
  assert.equal(
    codeOf(() => decodeSnapshot(b64json({ ...base, previous_card_id: prev }), 'revocation')),
    'PUBLIC_KEY_NOT_EMPTY',
  );
  assert.equal(
    codeOf(() => decodeSnapshot(b64json({ ...base, public_key: '' }), 'revocation')),
    'REVOKE_PREVIOUS_MISSING',
  );
});

const badInputs: [string, string, ErrorCode, SnapshotPurpose?][] = [
  ['empty string', '', 'SNAPSHOT_EMPTY'],
  ['not base64', 'not base64!', 'SNAPSHOT_NOT_BASE64'],
  [
    'base64 with whitespace',
    `${b64json(base).slice(0, 8)} ${b64json(base).slice(8)}`,
    'SNAPSHOT_NOT_BASE64',
  ],
  ['base64 of text', encodeBase64(utf8('hello')), 'SNAPSHOT_NOT_JSON'],
  ['base64 of bad utf-8', encodeBase64(new Uint8Array([0x7b, 0xff, 0x7d])), 'SNAPSHOT_NOT_JSON'],
  ['a JSON array', b64json([base]), 'BODY_PARSE'],
  ['public key missing', b64json({ ...base, public_key: undefined }), 'PUBLIC_KEY_TOO_SHORT'],
  ['public key not base64', b64json({ ...base, public_key: '***' }), 'PUBLIC_KEY_NOT_BASE64'],
  ['public key a number', b64json({ ...base, public_key: 7 }), 'BODY_PARSE'],
  [
    'public key 15 bytes',
    b64json({ ...base, public_key: encodeBase64(new Uint8Array(15)) }),
    'PUBLIC_KEY_TOO_SHORT',
  ],
  [
    'public key 4097 bytes',
    b64json({ ...base, public_key: encodeBase64(new Uint8Array(4097)) }),
    'PUBLIC_KEY_TOO_LONG',
  ],
  [
    'truncated Ed25519 SPKI',
    b64json({ ...base, public_key: encodeBase64(key.subarray(0, 40)) }),
    'PUBLIC_KEY_NOT_BASE64',
  ],
  ['identity missing', b64json({ ...base, identity: undefined }), 'IDENTITY_EMPTY'],
  ['identity empty', b64json({ ...base, identity: '' }), 'IDENTITY_EMPTY'],
  ['identity a number', b64json({ ...base, identity: 1 }), 'BODY_PARSE'],
  [
    'identity 1025 bytes',
    b64json({ ...base, identity: 'é'.repeat(512) + 'x' }),
    'IDENTITY_TOO_LONG',
  ],
  [
    'previous id 63 chars',
    b64json({ ...base, previous_card_id: prev.slice(1) }),
    'PREVIOUS_ID_INVALID',
  ],
  [
    'previous id non-hex',
    b64json({ ...base, previous_card_id: 'zz' + prev.slice(2) }),
    'PREVIOUS_ID_INVALID',
  ],
  ['previous id a number', b64json({ ...base, previous_card_id: 5 }), 'BODY_PARSE'],
  [
    'previous id uppercase',
    b64json({ ...base, previous_card_id: prev.toUpperCase() }),
    'PREVIOUS_ID_INVALID',
  ],
  [
    'previous id mixed case',
    b64json({ ...base, previous_card_id: `A${prev.slice(1)}` }),
    'PREVIOUS_ID_INVALID',
  ],
  ['created_at missing', b64json({ ...base, created_at: undefined }), 'CREATED_AT_INVALID'],
  ['created_at zero', b64json({ ...base, created_at: 0 }), 'CREATED_AT_INVALID'],
  ['created_at negative', b64json({ ...base, created_at: -5 }), 'CREATED_AT_INVALID'],
  ['created_at fractional', b64json({ ...base, created_at: 1.5 }), 'CREATED_AT_INVALID'],
  [
    'created_at huge',
    encodeBase64(utf8(JSON.stringify(base).replace('1700000000', '1e400'))),
    'CREATED_AT_INVALID',
  ],
  ['created_at a string', b64json({ ...base, created_at: '1700000000' }), 'BODY_PARSE'],
  ['version missing', b64json({ ...base, version: undefined }), 'VERSION_INVALID'],
  ['version 4.0', b64json({ ...base, version: '4.0' }), 'VERSION_INVALID'],
  ['version a number', b64json({ ...base, version: 5 }), 'BODY_PARSE'],
];

test('bad snapshots are refused with their code', () => {
  for (const [name, input, code, purpose] of badInputs) {
    assert.equal(
      codeOf(() => decodeSnapshot(input, purpose ?? 'card')),
      code,
      name,
    );
  }
});

test('checks run in the deployed service order: key before identity before version', () => {
  const all = b64json({ public_key: 'x', identity: '', version: '1', created_at: 0 });
  assert.equal(
    codeOf(() => decodeSnapshot(all, 'card')),
    'PUBLIC_KEY_NOT_BASE64',
  );
  const noKeyIssue = b64json({ public_key: pk, identity: '', version: '1', created_at: 0 });
  assert.equal(
    codeOf(() => decodeSnapshot(noKeyIssue, 'card')),
    'IDENTITY_EMPTY',
  );
  const onlyVersionAndTime = b64json({
    public_key: pk,
    identity: 'a',
    version: '1',
    created_at: 0,
  });
  assert.equal(
    codeOf(() => decodeSnapshot(onlyVersionAndTime, 'card')),
    'CREATED_AT_INVALID',
  );
});

test('parseSnapshot never throws anything but CardsError on arbitrary bytes', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
      try {
        parseSnapshot(bytes, 'any');
      } catch (err) {
        assert.ok(err instanceof CardsError);
      }
    }),
    { numRuns: 500 },
  );
});

test('reportSnapshot lists every field problem with the codes decodeSnapshot gives one at a time', () => {
  const report = reportSnapshot(
    b64json({ public_key: '***', identity: '', created_at: 'x', version: '4' }),
  );
  assert.deepEqual(
    report.problems.map((p) => [p.field, p.error.code]),
    [
      ['public_key', 'PUBLIC_KEY_NOT_BASE64'],
      ['identity', 'IDENTITY_EMPTY'],
      ['created_at', 'BODY_PARSE'],
      ['version', 'VERSION_INVALID'],
    ],
  );
  // An empty key is judged as a revoking card, so a missing key reports the missing previous id.
  for (const [name, input, code] of badInputs.filter(([name]) => name !== 'public key missing')) {
    const first = reportSnapshot(input).problems[0]?.error.code;
    assert.equal(first, code, name);
  }
  assert.deepEqual(reportSnapshot(b64json(base)).problems, []);
  const revoking = reportSnapshot(b64json({ ...base, public_key: '' }));
  assert.deepEqual(
    revoking.problems.map((p) => p.error.code),
    ['REVOKE_PREVIOUS_MISSING'],
  );
});

test("expectedIdentity is checked right after the snapshot's own identity checks (40034)", () => {
  const decode = (fields: object) =>
    codeOf(() => decodeSnapshot(b64json(fields), 'card', { expectedIdentity: 'alice' }));
  assert.equal(decode(base), 'none');
  assert.equal(decode({ ...base, identity: 'bob' }), 'IDENTITY_MISMATCH');
  assert.equal(
    decode({ ...base, identity: 'bob', created_at: 0, version: '4' }),
    'IDENTITY_MISMATCH',
  );
  assert.equal(decode({ ...base, identity: 'bob', public_key: '***' }), 'PUBLIC_KEY_NOT_BASE64');
  assert.equal(decode({ ...base, identity: '' }), 'IDENTITY_EMPTY');
});
