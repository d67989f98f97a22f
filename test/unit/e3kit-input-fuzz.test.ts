// The parsers of e3kit's request bodies (src/registry/keyknox-input.ts, and Pythia's in
// src/registry/pythia.ts) on arbitrary JSON: a typed request or a CardsError with the code of
// the field at fault, never another throw. fast-check properties.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { decodeBase64 } from '../../src/core/encoding.js';
import { CardsError, type ErrorCode } from '../../src/core/errors.js';
import { isObject } from '../../src/core/json.js';
import {
  parsePreviousHash,
  parseV1Push,
  parseV2Keys,
  parseV2Pull,
  parseV2Push,
  parseV2Reset,
} from '../../src/registry/keyknox-input.js';
import { Pythia } from '../../src/registry/pythia.js';
import { PythiaThrottle } from '../../src/registry/pythia-throttle.js';
import type { PythiaKeys } from '../../src/crypto/pythia.js';

const KEYKNOX_CODES = new Set<ErrorCode>([
  'BODY_PARSE',
  'KEYKNOX_VALUE_INVALID',
  'KEYKNOX_ADDRESS_INVALID',
  'KEYKNOX_IDENTITIES_INVALID',
]);
const PYTHIA_CODES = new Set<ErrorCode>([
  'BODY_PARSE',
  'PYTHIA_PASSWORD_INVALID',
  'PYTHIA_SALT_INVALID',
  'PYTHIA_VERSION_UNKNOWN',
  'PYTHIA_BRAINKEY_ID_INVALID',
]);

const base64 = fc
  .uint8Array({ minLength: 0, maxLength: 64 })
  .map((b) => Buffer.from(b).toString('base64'));
const point = fc
  .uint8Array({ minLength: 49, maxLength: 49 })
  .map((b) => Buffer.from(b).toString('base64'));
/** Bodies near the real ones (the right field names, values of any type) and any JSON at all. */
const body = fc.oneof(
  fc.jsonValue(),
  fc.record(
    {
      meta: fc.oneof(base64, fc.jsonValue()),
      value: fc.oneof(base64, fc.jsonValue()),
      root: fc.oneof(fc.string(), fc.jsonValue()),
      path: fc.oneof(fc.string(), fc.jsonValue()),
      key: fc.oneof(fc.string(), fc.jsonValue()),
      identity: fc.oneof(fc.string(), fc.jsonValue()),
      identities: fc.oneof(fc.array(fc.string()), fc.jsonValue()),
      blinded_password: fc.oneof(base64, point, fc.jsonValue()),
      brainkey_id: fc.oneof(fc.string(), fc.jsonValue()),
      user_id: fc.oneof(base64, fc.jsonValue()),
      version: fc.oneof(fc.integer({ min: -2, max: 4 }), fc.jsonValue()),
      include_proof: fc.oneof(fc.boolean(), fc.jsonValue()),
    },
    { requiredKeys: [] },
  ),
);

function refusedWith(codes: Set<ErrorCode>, run: () => unknown): void {
  try {
    run();
  } catch (err) {
    assert.ok(err instanceof CardsError, `not a CardsError: ${String(err)}`);
    assert.ok(codes.has(err.code), err.code);
    assert.ok(err.message.length > 0);
  }
}

test('Keyknox bodies: a typed request or a 30001/50xxx refusal, never another throw', () => {
  fc.assert(
    fc.property(body, (b) => {
      for (const parse of [parseV1Push, parseV2Push, parseV2Pull, parseV2Keys, parseV2Reset])
        refusedWith(KEYKNOX_CODES, () => parse(b));
    }),
    { numRuns: 2000 },
  );
  fc.assert(
    fc.property(fc.option(fc.string()), (h) => {
      const got = parsePreviousHash(h ?? undefined);
      assert.ok(got === undefined || (typeof got === 'string' && got !== ''));
    }),
  );
});

test('Pythia bodies: a refusal with a 30001/60xxx code before any computation, or a computation', async () => {
  // What would compute: records that a body got that far, and refuses it as a bad point would.
  let computed = 0;
  const compute = {
    brainkey: () => {
      computed++;
      return Promise.reject(new CardsError('PYTHIA_PASSWORD_INVALID'));
    },
    password: () => {
      computed++;
      return Promise.reject(new CardsError('PYTHIA_PASSWORD_INVALID'));
    },
  };
  const pair = { privateKey: new Uint8Array(33), publicKey: new Uint8Array(49) };
  const keys: PythiaKeys = {
    brainkey: pair,
    passwords: [pair, pair],
    proofKeys: [],
    updateTokens: [],
  };
  const pythia = new Pythia(compute, keys, new PythiaThrottle('off'));
  const caller = { app: 'app', identity: 'alice' };
  let reached = 0;
  await fc.assert(
    fc.asyncProperty(body, async (b) => {
      for (const op of ['brainkey', 'password'] as const) {
        const before = computed;
        try {
          await pythia[op](caller, b);
          assert.fail('the stand-in computation always refuses');
        } catch (err) {
          assert.ok(err instanceof CardsError, String(err));
          assert.ok(PYTHIA_CODES.has(err.code), err.code);
          // Only a body whose every field is right reaches the computation.
          const blinded = isObject(b) ? b.blinded_password : undefined;
          if (computed > before)
            assert.ok(typeof blinded === 'string' && decodeBase64(blinded)?.byteLength === 49);
          if (computed > before) reached++;
        }
      }
    }),
    { numRuns: 1000 },
  );
  assert.ok(reached > 0, 'some bodies reached the computation');
});
