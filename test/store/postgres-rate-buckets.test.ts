/**
 * Pythia's token buckets on PostgreSQL (store/postgres/rate-buckets.ts) read the database's one
 * clock. A clock that goes back (an NTP step, a fail-over to a replica whose clock is behind)
 * leaves rows stamped later than the time now: a bucket refills from the time now on, never
 * waits until the clock is back where it was (an hour's step throttled a caller for the hour).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openEngine } from '../../src/server/open-engine.js';
import { freshStoreUrl, sql } from '../helpers/postgres.js';

test('a bucket stamped later than the clock refills from the time now on', async (t) => {
  const url = await freshStoreUrl();
  const engine = await openEngine(url);
  t.after(() => engine.close());
  const buckets = engine.rateBuckets;
  assert.ok(buckets, 'a PostgreSQL engine shares its buckets');
  const refillMs = 200;
  assert.equal(await buckets.take('caller', 1, refillMs), true, 'a new bucket starts full');
  // The clock goes back an hour: the bucket is stamped an hour ahead of it, and empty.
  await sql(url, `UPDATE cards_rate_buckets SET tokens = 0, at_ms = at_ms + 3600000`);
  assert.equal(await buckets.take('caller', 1, refillMs), false, 'no time has passed');
  await new Promise((resolve) => setTimeout(resolve, 2 * refillMs));
  assert.equal(await buckets.take('caller', 1, refillMs), true, 'two refills have passed');
  assert.equal(await buckets.take('caller', 1, refillMs), false, 'a burst of one');
});
