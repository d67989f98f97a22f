/**
 * Snapshots are read one way only (core/strict-json.ts), as strictly as the deployed service:
 * a name twice (or once more in another case), a byte-order mark, or a created_at that is not
 * digits alone are refused with
 * the existing codes, so two parsers can never read one card two ways; and every base64 field
 * (snapshot, extra snapshot, signature, public key) is canonical: unused trailing bits zero.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { parseRawCard, parseSignatures, reportSignatures } from '../../src/core/card.js';
import { decodeBase64, encodeBase64, utf8 } from '../../src/core/encoding.js';
import { decodeSnapshot, parseSnapshot, reportSnapshot } from '../../src/core/snapshot.js';
import { parseStrictJson } from '../../src/core/strict-json.js';
import { generatePrivateKey } from '../../src/crypto/keys.js';
import { codeOfSync } from '../helpers/code-of.js';

const pk = encodeBase64(generatePrivateKey().publicKey.spki);

const fromText = (text: string): string => encodeBase64(utf8(text));
const valid = `{"identity":"alice","public_key":"${pk}","version":"5.0","created_at":1700000000}`;

/** A snapshot both readers refuse as 40003: the card's decoder and `cards inspect`'s report. */
function refusedAsNotJson(text: string): void {
  assert.equal(
    codeOfSync(() => decodeSnapshot(fromText(text), 'card')),
    'SNAPSHOT_NOT_JSON',
    text,
  );
  assert.equal(reportSnapshot(fromText(text)).problems[0]?.error.code, 'SNAPSHOT_NOT_JSON', text);
}

/** The same base64 with the unused low bits of its last data character set (same bytes). */
function nonCanonical(canonical: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const pad = canonical.endsWith('==') ? 2 : canonical.endsWith('=') ? 1 : 0;
  assert.ok(pad > 0, 'needs padding to have unused bits');
  const at = canonical.length - pad - 1;
  const index = alphabet.indexOf(canonical[at] as string);
  const spare = pad === 2 ? 0b1111 : 0b11;
  const changed = alphabet[index | spare] as string;
  assert.notEqual(changed, canonical[at]);
  const text = canonical.slice(0, at) + changed + canonical.slice(at + 1);
  assert.deepEqual(Buffer.from(text, 'base64'), Buffer.from(canonical, 'base64'), 'same bytes');
  return text;
}

test('the valid snapshot these tests vary is accepted', () => {
  assert.equal(decodeSnapshot(fromText(valid), 'card').identity, 'alice');
});

test('a name twice in the snapshot is refused (40003), however it is spelled', () => {
  const cases = [
    `{"identity":"alice","identity":"bob","public_key":"${pk}","version":"5.0","created_at":1700000000}`,
    `{"identity":"alice","public_key":"${pk}","public_key":"${pk}","version":"5.0","created_at":1700000000}`,
    `{"identity":"alice","\\u0069dentity":"bob","public_key":"${pk}","version":"5.0","created_at":1700000000}`,
    `{"identity":"alice","public_key":"${pk}","version":"5.0","created_at":1700000000,"created_at":1700000001}`,
    `{"identity":"alice","public_key":"${pk}","version":"5.0","created_at":1700000000,"x":{"a":1,"a":2}}`,
  ];
  for (const text of cases) refusedAsNotJson(text);
});

test('a name a case-insensitive parser reads as a field is refused (40003): Go would read the card another way', () => {
  // Go's encoding/json (the stock Go SDK) fills "identity" from "IDENTITY" too, the last one
  // winning, and folds KELVIN SIGN (U+212A) to "k" and LONG S (U+017F) to "s".
  const cases = [
    `{"identity":"alice","IDENTITY":"bob","public_key":"${pk}","version":"5.0","created_at":1700000000}`,
    `{"Identity":"bob","identity":"alice","public_key":"${pk}","version":"5.0","created_at":1700000000}`,
    `{"identity":"alice","public_key":"${pk}","public_\u212aey":"${pk}","version":"5.0","created_at":1700000000}`,
    `{"identity":"alice","public_key":"${pk}","version":"5.0","created_at":1700000000,"Created_At":1800000000}`,
    `{"identity":"alice","public_key":"${pk}","version":"5.0","created_at":1700000000,"Previou\u017f_card_id":"${'a'.repeat(64)}"}`,
    `{"identity":"alice","public_key":"${pk}","version":"5.0","VERSION":"4.0","created_at":1700000000}`,
  ];
  for (const text of cases) refusedAsNotJson(text);
  // A name of no field, however spelled, is taken as before (the snapshot is kept as bytes).
  const other = `{"identity":"alice","public_key":"${pk}","version":"5.0","created_at":1700000000,"Identity2":1,"note":"x"}`;
  assert.equal(decodeSnapshot(fromText(other), 'card').identity, 'alice');
});

test('a UTF-8 byte-order mark before the snapshot is refused (40003)', () => {
  const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...utf8(valid)]);
  assert.equal(
    codeOfSync(() => parseSnapshot(bytes, 'card')),
    'SNAPSHOT_NOT_JSON',
  );
  assert.equal(
    codeOfSync(() => decodeSnapshot(encodeBase64(bytes), 'card')),
    'SNAPSHOT_NOT_JSON',
  );
});

test('created_at is an integer written as digits alone (40018): no fraction, no exponent', () => {
  for (const literal of ['1700000000.0', '17e8', '1.7e9', '1700000000E0', '1.7000000000e+9']) {
    const text = valid.replace('1700000000', literal);
    assert.equal(
      codeOfSync(() => decodeSnapshot(fromText(text), 'card')),
      'CREATED_AT_INVALID',
      text,
    );
  }
  // JSON's own grammar refuses the rest (40003), as before.
  for (const literal of ['01700000000', '+1700000000', '0x65']) {
    const text = valid.replace('1700000000', literal);
    assert.equal(
      codeOfSync(() => decodeSnapshot(fromText(text), 'card')),
      'SNAPSHOT_NOT_JSON',
      text,
    );
  }
});

test('base64 with non-canonical trailing bits is refused in every field, with the field code', () => {
  // The snapshot: its JSON padded so that its base64 ends in "=" or "==".
  for (const padding of ['', ' ']) {
    const snapshot = fromText(valid + padding);
    if (!snapshot.endsWith('=')) continue;
    assert.equal(
      codeOfSync(() => decodeSnapshot(snapshot, 'card')),
      'none',
    );
    assert.equal(
      codeOfSync(() => decodeSnapshot(nonCanonical(snapshot), 'card')),
      'SNAPSHOT_NOT_BASE64',
    );
  }
  // The public key (44 bytes: one "=").
  const keyText = valid.replace(pk, nonCanonical(pk));
  assert.equal(
    codeOfSync(() => decodeSnapshot(fromText(keyText), 'card')),
    'PUBLIC_KEY_NOT_BASE64',
  );
  // The signature (83 bytes: one "=") and the extra snapshot.
  const signature = encodeBase64(new Uint8Array(83).fill(7));
  const extra = encodeBase64(utf8('extra'));
  const options = { reservedSigner: 'service', requireSelf: true };
  const list = (entry: Record<string, string>) => [{ signer: 'self', signature, ...entry }];
  assert.equal(
    codeOfSync(() => parseSignatures(list({ snapshot: extra }), options)),
    'none',
  );
  assert.equal(
    codeOfSync(() => parseSignatures(list({ signature: nonCanonical(signature) }), options)),
    'SIGNATURE_NOT_BASE64',
  );
  assert.equal(
    codeOfSync(() => parseSignatures(list({ snapshot: nonCanonical(extra) }), options)),
    'EXTRA_SNAPSHOT_INVALID',
  );
  const report = reportSignatures(list({ snapshot: nonCanonical(extra) }), options);
  assert.equal(report.problems[0]?.error.code, 'EXTRA_SNAPSHOT_INVALID');
  assert.equal(parseRawCard({ content_snapshot: 'x', signatures: [] }).content_snapshot, 'x');
});

test('base64 decoding is canonical: exactly one text for each byte string', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 64 }), fc.nat(63), (bytes, flip) => {
      const text = encodeBase64(bytes);
      assert.deepEqual(decodeBase64(text), bytes);
      // Any other text of the same length that decodes is other bytes.
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
      const at = text.replace(/=+$/, '').length - 1;
      if (at < 0) return;
      const other = text.slice(0, at) + (alphabet[flip] as string) + text.slice(at + 1);
      const decoded = decodeBase64(other);
      if (decoded !== undefined && other !== text) assert.notDeepEqual(decoded, bytes);
    }),
  );
});

test('the strict reader gives what JSON.parse gives for every JSON value it accepts', () => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      const text = JSON.stringify(value);
      let strict: unknown;
      try {
        strict = parseStrictJson(text).value;
      } catch {
        return; // a lone surrogate or U+0000 in a string, or nested too deep
      }
      assert.deepEqual(strict, JSON.parse(text));
    }),
    { numRuns: 300 },
  );
  assert.deepEqual(
    Object.getOwnPropertyNames(parseStrictJson('{"__proto__":1}').value),
    ['__proto__'],
    'an own property, as JSON.parse makes it',
  );
});
