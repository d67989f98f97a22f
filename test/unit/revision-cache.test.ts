/**
 * The cache of texts by revision behind an identity's history (src/registry/revision-cache.ts):
 * a text only for the revision it was kept under, a budget of characters with the oldest
 * entries leaving first, and no text larger than a quarter of the budget.
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
  assert.deepEqual([cache.size, cache.chars], [1, 4]);
  cache.delete('alice');
  assert.deepEqual([cache.size, cache.chars], [0, 0]);
});

test('the budget: the oldest texts leave first; a text over a quarter of it is not kept', () => {
  const cache = new RevisionCache(100);
  for (let i = 0; i < 10; i++) cache.set(`k${i}`, i, 'x'.repeat(20));
  assert.deepEqual([cache.size, cache.chars], [5, 100]);
  assert.equal(cache.get('k4', 4), undefined);
  assert.equal(cache.get('k5', 5), 'x'.repeat(20));
  cache.set('big', 1, 'x'.repeat(26));
  assert.equal(cache.get('big', 1), undefined);
  assert.deepEqual([cache.size, cache.chars], [5, 100]);
  cache.set('k5', 6, 'y'.repeat(25)); // replaced: its old text no longer counts
  assert.deepEqual([cache.size, cache.chars], [4, 85]);
  assert.equal(cache.get('k5', 6), 'y'.repeat(25));
});
