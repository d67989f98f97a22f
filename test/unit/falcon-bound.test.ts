/**
 * Falcon hybrid signatures of the stock library are accepted up to the round-2 bound its
 * engine uses (src/crypto/falcon.ts): fixtures/stock-falcon-round2.json holds one stock
 * signature within the round-3 bound and one between the two bounds, both verified by the
 * stock library when made (interop/make-falcon-fixture.mjs). Anything altered is refused.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readCardKey } from '../../src/crypto/card-key.js';
import { readFixture } from '../helpers/fixtures.js';

interface Signed {
  readonly message: string;
  readonly signature: string;
  readonly norm: number;
}
const bytes = (base64: string): Uint8Array => new Uint8Array(Buffer.from(base64, 'base64'));
const fixture = readFixture<{ publicKey: string; within: Signed; between: Signed }>(
  'stock-falcon-round2.json',
);
const key = readCardKey(bytes(fixture.publicKey));
const verify = (signature: Uint8Array, message: Uint8Array): Promise<boolean> =>
  Promise.resolve(key.verify(signature, message));

test('the fixture holds a signature on each side of the round-3 bound', () => {
  assert.equal(key.type, 'curve25519-round5-ed25519-falcon');
  assert.ok(fixture.within.norm <= 34_034_726);
  assert.ok(fixture.between.norm > 34_034_726 && fixture.between.norm < 43_533_782);
});

for (const which of ['within', 'between'] as const) {
  const { message, signature } = fixture[which];
  test(`a stock signature ${which} the round-3 bound verifies`, async () => {
    assert.equal(await verify(bytes(signature), bytes(message)), true);
  });

  test(`a stock signature ${which} the round-3 bound, altered, is refused`, async () => {
    const sig = bytes(signature);
    const msg = bytes(message);
    // Another message.
    const other = msg.slice();
    other[0]! ^= 1;
    assert.equal(await verify(sig, other), false);
    // The Falcon nonce, then one coefficient of s2 (the signature's last 809 bytes).
    for (const at of [sig.length - 809 + 5, sig.length - 100]) {
      const altered = sig.slice();
      altered[at]! ^= 0x10;
      assert.equal(await verify(altered, msg), false, `byte ${at}`);
    }
  });
}
