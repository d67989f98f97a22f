import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  decodeBase64,
  decodeBase64Url,
  decodeHex,
  decodeStoredBase64,
  encodeBase64,
  encodeBase64Each,
  encodeBase64Url,
  encodeHex,
} from '../../src/core/encoding.js';

test('base64 round-trips any bytes', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
      assert.deepEqual(decodeBase64(encodeBase64(bytes)), bytes);
      assert.deepEqual(decodeBase64Url(encodeBase64Url(bytes)), bytes);
      assert.deepEqual(decodeHex(encodeHex(bytes)), bytes);
    }),
  );
});

test('base64 of several items at once is each one encoded alone', () => {
  fc.assert(
    fc.property(fc.array(fc.uint8Array({ maxLength: 40 }), { maxLength: 20 }), (items) => {
      // Views into a larger buffer too, as a proof's hashes are.
      const views = items.map((item) => {
        const wider = new Uint8Array(item.byteLength + 5);
        wider.set(item, 3);
        return wider.subarray(3, 3 + item.byteLength);
      });
      assert.deepEqual(encodeBase64Each(views), items.map(encodeBase64));
    }),
  );
});

test('base64 decoding is strict', () => {
  for (const bad of [
    'abc',
    'ab=c',
    'a b=',
    'YWJj\n',
    'YW==J',
    '====',
    'YWJj=',
    '-_==',
    'YQ',
    'YQ=',
    'YQ===',
    'Y===',
    'YQ=A',
    'YWJjYQ=',
  ]) {
    assert.equal(decodeBase64(bad), undefined, JSON.stringify(bad));
  }
  assert.deepEqual(decodeBase64(''), new Uint8Array(0));
  assert.deepEqual(decodeBase64('YQ=='), new Uint8Array([97]));
});

test('base64 of a large value decodes, in one pass: 8 MiB of bytes, ~11 million characters', () => {
  const bytes = Buffer.alloc(8 * 1024 * 1024, 7);
  const text = bytes.toString('base64');
  assert.ok(bytes.equals(decodeBase64(text) as Uint8Array));
  assert.ok(bytes.equals(decodeStoredBase64(text) as Uint8Array));
  assert.equal(decodeBase64(`${text.slice(0, -4)}A===`), undefined);
});

test('hex decoding refuses odd lengths and non-hex', () => {
  for (const bad of ['a', 'zz', '0g', ' 00']) assert.equal(decodeHex(bad), undefined);
});
