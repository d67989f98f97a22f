/**
 * An identity in a URL path segment (src/core/identity-segment.ts): for any string at all (lone
 * surrogates, `.` and `..`, slashes, percent signs, controls), the segment survives a WHATWG URL
 * parser unchanged (what fetch does to a path in every browser and in Node) and reads back as the
 * same identity; only identities with no plain segment take the JSON form.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  identityOfSegment,
  identitySegment,
  JSON_FORM,
  needsJsonForm,
} from '../../src/core/identity-segment.js';

/** Any UTF-16 code units, lone surrogates too (fast-check's binary strings are slow to make). */
const codeUnits = fc
  .array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 24 })
  .map((units) => String.fromCharCode(...units));

const BASE = 'http://127.0.0.1:8080/_cards/identities/';

const roundTrip = (identity: string): void => {
  const { segment, form } = identitySegment(identity);
  const url = new URL(`${BASE}${segment}${form ? `?form=${form}` : ''}`);
  assert.equal(url.pathname, `/_cards/identities/${segment}`, JSON.stringify(identity));
  const back = identityOfSegment(
    decodeURIComponent(segment),
    url.searchParams.get('form') ?? undefined,
  );
  assert.equal(back, identity);
  assert.equal(form === JSON_FORM, needsJsonForm(identity));
};

test('the identities a path cannot carry plainly, and their neighbours', () => {
  for (const identity of [
    '.',
    '..',
    '...',
    '%2E%2E',
    '%2e',
    'a/b',
    '/',
    '100%',
    '\ud800',
    'a\udc00b',
  ])
    roundTrip(identity);
  assert.deepEqual(identitySegment('..'), { segment: '%22..%22', form: 'json' });
  assert.deepEqual(identitySegment('alice@example.com'), { segment: 'alice%40example.com' });
  assert.deepEqual(identitySegment('\ud83d\ude00'), { segment: '%F0%9F%98%80' });
});

test('any string survives the URL parser and reads back the same', () => {
  fc.assert(
    fc.property(
      fc.oneof(codeUnits, fc.constantFrom('.', '..'), fc.string({ unit: 'grapheme' })),
      (identity) => roundTrip(identity),
    ),
    { numRuns: 1000 },
  );
});

test('a form other than json, or a segment that is no JSON string, names no identity', () => {
  assert.equal(identityOfSegment('alice', 'text'), undefined);
  assert.equal(identityOfSegment('alice', JSON_FORM), undefined);
  assert.equal(identityOfSegment('["alice"]', JSON_FORM), undefined);
  assert.equal(identityOfSegment('"alice"', JSON_FORM), 'alice');
  assert.equal(identityOfSegment('"alice"', undefined), '"alice"');
});
