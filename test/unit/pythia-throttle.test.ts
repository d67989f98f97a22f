/**
 * Pythia's throttle on one server (registry/pythia-throttle.ts): a token bucket per caller and
 * operation, on the wall clock. A clock set back (NTP, a VM restored) must not take tokens away:
 * the time it went back is no time at all, as the shared PostgreSQL buckets count it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CardsError } from '../../src/core/errors.js';
import {
  PythiaThrottle,
  parseThrottle,
  type ThrottleSetting,
} from '../../src/registry/pythia-throttle.js';

const setting = parseThrottle('2/500') as ThrottleSetting;

async function granted(throttle: PythiaThrottle): Promise<boolean> {
  try {
    await throttle.take('brainkey', 'app', 'alice');
    return true;
  } catch (err) {
    if (err instanceof CardsError && err.code === 'PYTHIA_THROTTLED') return false;
    throw err;
  }
}

test('a burst, then one token a refill', async () => {
  let now = 1_000_000;
  const throttle = new PythiaThrottle(setting, () => now);
  assert.deepEqual(
    [await granted(throttle), await granted(throttle), await granted(throttle)],
    [true, true, false],
  );
  now += setting.refillMs;
  assert.equal(await granted(throttle), true);
  assert.equal(await granted(throttle), false);
});

test('a clock set back an hour throttles no one for that hour', async () => {
  let now = 10_000_000;
  const throttle = new PythiaThrottle(setting, () => now);
  assert.equal(await granted(throttle), true);
  now -= 3_600_000;
  assert.equal(await granted(throttle), true, 'the bucket still held a token');
  assert.equal(await granted(throttle), false, 'the burst spent');
  now += setting.refillMs;
  assert.equal(await granted(throttle), true, 'one refill later, a token again');
});
