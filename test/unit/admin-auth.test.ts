import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { createAdminGuard, generateAdminToken } from '../../src/http/admin-auth.js';
import { isCardsError } from '../../src/core/errors.js';

const TOKEN = generateAdminToken(new Uint8Array(32).fill(7));
const guard = createAdminGuard({ token: TOKEN, loopbackOpen: false, cardScheme: 'Service' });
const admitted = (token: string): boolean => {
  try {
    return guard.admit({ authorization: `Bearer ${token}` }) === 'admin';
  } catch (err) {
    assert.ok(isCardsError(err) && err.code === 'ADMIN_TOKEN_INVALID', String(err));
    return false;
  }
};

test('the admin token is admitted, and nothing near it', () => {
  assert.equal(admitted(TOKEN), true);
  assert.equal(guard.isAdminToken(`Bearer ${TOKEN}`), true);
  const near = [
    TOKEN.slice(0, -1), // a prefix
    `${TOKEN}x`, // longer
    `${TOKEN.slice(0, -1)}${TOKEN.endsWith('A') ? 'B' : 'A'}`, // same length, last byte off
    `x${TOKEN.slice(1)}`, // same length, first byte off
    TOKEN.toUpperCase(),
    `${TOKEN.slice(0, -1)}é`, // same characters, not the same bytes
    '',
  ];
  for (const token of near) {
    assert.equal(admitted(token), false, token);
    assert.equal(guard.isAdminToken(`Bearer ${token}`), false, token);
  }
});

test('any other token is refused', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme', maxLength: 80 }), (token) => {
      fc.pre(token.trim() !== TOKEN);
      assert.equal(admitted(token.trim()), false);
    }),
  );
});
