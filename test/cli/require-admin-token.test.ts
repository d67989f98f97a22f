/**
 * `cards serve --require-admin-token`: on a loopback host the admin API asks for the admin token
 * too (a reverse proxy on the same machine makes every client a loopback one). Without the
 * flag a loopback server's admin API is open (docs/serve.md).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { said } from './harness.js';
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
