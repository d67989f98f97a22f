/**
 * Pythia's throttle counts every server on one PostgreSQL as one service: the deployed service
 * refuses a caller past its burst (60007, 429) however its requests are spread, so brainkeys
 * asked of two servers in turn are refused past the one burst, not past one burst per server
 * (docs/e3kit.md, "Pythia").
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startInProcess, type InProcessServer } from '../helpers/in-process-server.js';
import { freshStoreUrl } from '../helpers/postgres.js';
import { blind } from '../http/e3kit-kit.js';
import { call, replyCode } from '../reliability/kit.js';

test('two servers on one PostgreSQL throttle brainkeys as one: one burst per identity in all', async (t) => {
  const store = await freshStoreUrl();
  const servers: InProcessServer[] = [];
  for (let i = 0; i < 2; i++) {
    // A burst of 2, one more a minute: no token comes back while the test runs.
    const server = await startInProcess({
      store,
      args: ['--quiet', '--no-log', '--pythia-throttle', '2/60000', '--pythia-threads', '1'],
    });
    t.after(() => server.dispose());
    servers.push(server);
  }
  const { blinded } = await blind('correct horse');
  const brainkey = (server: InProcessServer, identity: string) =>
    call(server, 'POST', '/pythia/v1/brainkey', {
      identity,
      body: { blinded_password: blinded, brainkey_id: 'backup' },
    });
  const codes: (string | number)[] = [];
  for (let i = 0; i < 6; i++) codes.push(replyCode(await brainkey(servers[i % 2]!, 'alice')));
  assert.deepEqual(codes, [
    200,
    200,
    'PYTHIA_THROTTLED',
    'PYTHIA_THROTTLED',
    'PYTHIA_THROTTLED',
    'PYTHIA_THROTTLED',
  ]);
  // Another identity has its own burst, on either server.
  assert.equal(replyCode(await brainkey(servers[1]!, 'bob')), 200);
  assert.equal(replyCode(await brainkey(servers[0]!, 'bob')), 200);
  assert.equal(replyCode(await brainkey(servers[1]!, 'bob')), 'PYTHIA_THROTTLED');
  // Asked all at once, spread over both servers: still one burst.
  const raced = await Promise.all(
    Array.from({ length: 16 }, async (_, i) => replyCode(await brainkey(servers[i % 2]!, 'erin'))),
  );
  assert.deepEqual(
    [raced.filter((c) => c === 200).length, raced.filter((c) => c === 'PYTHIA_THROTTLED').length],
    [2, 14],
  );
  // A request refused for its input gives its token back, on the shared count too.
  const carol = await brainkey(servers[0]!, 'carol');
  assert.equal(carol.status, 200);
  const bad = await call(servers[1]!, 'POST', '/pythia/v1/brainkey', {
    identity: 'carol',
    body: { blinded_password: Buffer.alloc(384, 1).toString('base64') },
  });
  assert.equal(bad.status, 400, bad.text);
  assert.equal(replyCode(await brainkey(servers[0]!, 'carol')), 200);
  assert.equal(replyCode(await brainkey(servers[1]!, 'carol')), 'PYTHIA_THROTTLED');
});

test('a shared bucket refills on the database clock, for every server', async (t) => {
  const store = await freshStoreUrl();
  const servers: InProcessServer[] = [];
  for (let i = 0; i < 2; i++) {
    const server = await startInProcess({
      store,
      args: ['--quiet', '--no-log', '--pythia-throttle', '1/1500', '--pythia-threads', '1'],
    });
    t.after(() => server.dispose());
    servers.push(server);
  }
  const { blinded } = await blind('battery staple');
  const brainkey = (server: InProcessServer, identity = 'dave') =>
    call(server, 'POST', '/pythia/v1/brainkey', {
      identity,
      body: { blinded_password: blinded },
    });
  // Each server's Pythia starts on its first request (seconds on a loaded machine): started
  // before dave's first, so his second is asked well within one refill.
  for (const [i, server] of servers.entries())
    assert.equal(replyCode(await brainkey(server, `warm${i}`)), 200);
  assert.equal(replyCode(await brainkey(servers[0]!)), 200);
  assert.equal(replyCode(await brainkey(servers[1]!)), 'PYTHIA_THROTTLED');
  // One token comes back 1.5 s later, whichever server is asked.
  await new Promise((resolve) => setTimeout(resolve, 1800));
  assert.equal(replyCode(await brainkey(servers[1]!)), 200);
  assert.equal(replyCode(await brainkey(servers[0]!)), 'PYTHIA_THROTTLED');
});
