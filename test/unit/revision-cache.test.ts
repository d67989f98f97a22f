/**
 * The cache of texts by revision behind an identity's history (src/registry/revision-cache.ts):
 * a text only for the revision it was kept under, a budget of characters kept in two halves
 * (the older half dropped whole), and no text larger than a quarter of the budget.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RevisionCache } from '../../src/registry/revision-cache.js';

test('a text is handed back for its own revision only', () => {
  const cache = new RevisionCache(100);
  assert.equal(cache.get('alice', 1), undefined);
  cache.set('alice', 1, 'one');
  assert.equal(cache.get('alice', 1), 'one');
  assert.equal(cache.get('alice', 2), undefined);
  assert.equal(cache.get('bob', 1), undefined);
  cache.set('alice', 2, 'two!');
  assert.equal(cache.get('alice', 1), undefined);
  assert.equal(cache.get('alice', 2), 'two!');
  assert.equal(cache.chars, 4);
});

test('the budget: the older half leaves whole; a text over a quarter of it is not kept', () => {
  const cache = new RevisionCache(100);
  const x = 'x'.repeat(20);
  for (let i = 0; i < 5; i++) cache.set(`k${i}`, i, x);
  // k0 k1 filled the young half, went old with k2; k2 k3 then did, and k0 k1 left.
  assert.deepEqual(
    [0, 1, 2, 3, 4].map((i) => cache.get(`k${i}`, i) !== undefined),
    [false, false, true, true, true],
  );
  assert.ok(cache.chars <= 100, `${cache.chars} characters kept`);
  cache.set('big', 1, 'x'.repeat(26));
  assert.equal(cache.get('big', 1), undefined);
  // An old text asked for moves to the young half and outlives the next turn.
  for (let i = 5; i < 9; i++) cache.set(`k${i}`, i, x);
  assert.equal(cache.get('k3', 3), undefined);
  assert.equal(cache.get('k8', 8), x);
  assert.ok(cache.chars <= 100, `${cache.chars} characters kept`);
  // Replaced in the young half: its old text no longer counts.
  const before = cache.chars;
  cache.set('k8', 9, 'y'.repeat(5));
  assert.equal(cache.chars, before - 15);
  assert.equal(cache.get('k8', 8), undefined);
  assert.equal(cache.get('k8', 9), 'yyyyy');
});
