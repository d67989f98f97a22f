/**
 * `cards serve --require-admin-token`: on a loopback host the admin API asks for the admin token
 * too (a reverse proxy on the same machine makes every client a loopback one). Without the
 * flag a loopback server's admin API is open (docs/serve.md).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { said, sandbox } from './harness.js';
import { serverInSandbox } from './server-sandbox.js';

test('--require-admin-token closes the loopback exemption of the admin API and the page', async () => {
  const { server, box } = await serverInSandbox({ args: ['--require-admin-token'] });
  try {
    const open = await fetch(`${server.url}/_cards/info`);
    assert.equal(open.status, 401);
    assert.match(String(((await open.json()) as { code: unknown }).code), /^203\d\d$/);
    assert.match(server.stdout(), /page: \S+ \(the page and \/_cards\/ need the admin token\)/);
    const token = readFileSync(server.paths.adminToken, 'utf8').trim();
    const allowed = await fetch(`${server.url}/_cards/info`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(allowed.status, 200);
    assert.equal(((await allowed.json()) as { admin_auth: string }).admin_auth, 'token');
    // The CLI beside the store sends the token file's token: it keeps working.
    const listed = await box.cards(['list', '--json']);
    assert.equal(listed.status, 0, said(listed));
  } finally {
    await Promise.all([server.dispose(), box.cleanup()]);
  }
  const { server: plain, box: plainBox } = await serverInSandbox();
  try {
    assert.equal((await fetch(`${plain.url}/_cards/info`)).status, 200, 'open without the flag');
  } finally {
    await Promise.all([plain.dispose(), plainBox.cleanup()]);
  }
});

test('the admin token from `cards init --admin-token` and `cards config set adminToken`', async () => {
  const { server, box } = await serverInSandbox({ args: ['--require-admin-token'] });
  // Another folder: no store beside it, so no token file; only the profile gives a token.
  const elsewhere = sandbox();
  try {
    const token = readFileSync(server.paths.adminToken, 'utf8').trim();
    const env = { CARDS_CONFIG: join(elsewhere.dir, 'config.json') };
    const none = await elsewhere.cards(['list', '--url', server.url]);
    assert.equal(none.status, 7, said(none));
    const init = await elsewhere.cards(
      ['init', '--url', server.url, '--admin-token', token, '--yes'],
      { env },
    );
    assert.equal(init.status, 0, said(init));
    assert.ok(!init.stdout.includes(token), 'the token is not printed');
    assert.match(init.stdout, /adminToken +\(set; a secret, not shown\)/);
    const listed = await elsewhere.cards(['list', '--json'], { env });
    assert.equal(listed.status, 0, said(listed));
    for (const [key, value, status] of [
      ['adminToken', 'not-the-token', 7],
      ['admin-token', token, 0],
    ] as const) {
      const set = await elsewhere.cards(['config', 'set', key, value], { env });
      assert.equal(set.status, 0, said(set));
      assert.ok(!set.stdout.includes(value), 'config set does not print the token');
      const after = await elsewhere.cards(['list'], { env });
      assert.equal(after.status, status, said(after));
      if (status === 7) assert.match(after.stderr, /the profile's adminToken/);
    }
    const unknown = await elsewhere.cards(['config', 'set', 'adminTokens', 'x'], { env });
    assert.equal(unknown.status, 2, said(unknown));
    assert.match(unknown.stderr, /settings: url, .*admin-token, log-key/);
  } finally {
    await Promise.all([server.dispose(), box.cleanup(), elsewhere.cleanup()]);
  }
});
