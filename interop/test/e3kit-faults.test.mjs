// Faults on purpose (`cards faults add`) as e3kit-node meets them: the throttling row of the
// Pythia brainkey (429, code 60007) on the next brainkey request. e3kit waits and asks again
// (its own retry after 60007), so a password backup and its restore on a new device still
// succeed; the request journal (`cards requests`) holds the refused request and the retry. On
// Node 20 e3kit-node loads only without the built-in fetch (`npm run test:interop`).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { describeRun, runCards } from '../lib/cli.mjs';
import { startServer } from '../lib/server.mjs';
import { makeApp, uniqueIdentity } from '../lib/stock.mjs';

if (typeof globalThis.fetch === 'function') {
  throw new Error('e3kit-node needs Node 20 run with --no-experimental-fetch (`npm test` does)');
}
const { EThree } = await import('@virgilsecurity/e3kit-node');

const app = makeApp();
const dirs = [];
let server;

before(async () => {
  server = await startServer({ jwtKeys: [app.publicKeyBase64] });
});
after(async () => {
  await server?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** One device of `identity`: its own key storage in a temporary directory. */
async function device(identity) {
  const dir = mkdtempSync(join(tmpdir(), 'cards-e3kit-faults-'));
  dirs.push(dir);
  return EThree.initialize(async () => app.token(identity).toString(), {
    apiUrl: server.url,
    storageName: join(dir, 'keys'),
    groupStorageName: join(dir, 'groups'),
  });
}

/** `cards ARGS --url URL` (the loopback server's admin API needs no token); exit 0 asserted. */
async function cards(args) {
  const all = [...args, '--url', server.url, '--compat', 'virgil'];
  const r = await runCards(all);
  assert.equal(r.status, 0, describeRun(all, r));
  return r;
}

/** The brainkey requests the journal holds for `identity`, oldest first: [status, fault]. */
async function brainkeys(identity) {
  const args = ['requests', '--route', 'pythiaBrainkey', '--identity', identity, '--json'];
  const { requests } = JSON.parse((await cards(args)).stdout);
  return requests.map((r) => [r.status, r.fault ?? null]).reverse();
}

describe('faults as e3kit-node meets them', () => {
  test('a throttled brainkey: backup and restore succeed after e3kit waits and retries', async () => {
    const alice = uniqueIdentity('alice');
    const throttle = ['faults', 'add', '--route', 'pythiaBrainkey', '--identity', alice];
    throttle.push('--error', 'PYTHIA_THROTTLED', '--count', '1');
    const first = await device(alice);
    await first.register();

    await cards(throttle);
    await first.backupPrivateKey('pa$$word');
    assert.deepEqual(await brainkeys(alice), [
      [429, 'fault 1: PYTHIA_THROTTLED'],
      [200, null],
    ]);

    await cards(throttle);
    const second = await device(alice);
    await second.restorePrivateKey('pa$$word');
    assert.equal(await second.hasLocalPrivateKey(), true);
    const message = await first.authEncrypt('for the new device');
    assert.equal(await second.authDecrypt(message), 'for the new device');
    assert.deepEqual((await brainkeys(alice)).slice(2), [
      [429, 'fault 2: PYTHIA_THROTTLED'],
      [200, null],
    ]);
    const { faults } = JSON.parse((await cards(['faults', 'list', '--json'])).stdout);
    assert.deepEqual(
      faults.map((f) => [f.route, f.error, f.hits, f.remaining]),
      [
        ['pythiaBrainkey', 'PYTHIA_THROTTLED', 1, 0],
        ['pythiaBrainkey', 'PYTHIA_THROTTLED', 1, 0],
      ],
    );
  });
});
