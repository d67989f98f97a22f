/**
 * An import refused at a line too long stops reading the body: its 413 says `Connection: close`
 * (RFC 9112 section 9.6), so a client's next requests go on a fresh connection and are answered.
 * Without it the 413 said keep-alive on a connection the server then dropped, and a client
 * reusing it (fetch's pool) got ECONNRESET on an unrelated request. A refusal before the body
 * is read (a card route's 401) keeps the connection, as it always did.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startInProcess } from '../helpers/in-process-server.js';

const LONG_LINE = `{"x":"${'A'.repeat(300_000)}"}\n`;

test('a 413 import refusal closes its connection; the requests after it are answered', async (t) => {
  const server = await startInProcess({ args: ['--quiet', '--no-log'] });
  t.after(() => server.dispose());
  const answered: string[] = [];
  for (let round = 0; round < 5; round++) {
    const refused = await fetch(`${server.url}/_cards/import?append=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: LONG_LINE,
    });
    assert.equal(refused.status, 413);
    assert.equal(refused.headers.get('connection'), 'close');
    await refused.text();
    for (const path of ['/', '/_cards/info', '/health']) {
      const response = await fetch(`${server.url}${path}`).catch(
        (err: Error) => `${path}: ${String((err.cause as Error | undefined)?.message ?? err)}`,
      );
      if (typeof response === 'string') answered.push(response);
      else {
        assert.equal(response.status, 200, path);
        await response.text();
      }
    }
  }
  assert.deepEqual(answered, [], 'every request after a refused import is answered');
  // A card route's refusal before its body is read keeps the connection open.
  const early = await fetch(`${server.url}/card/v5`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"content_snapshot":"x"}',
  });
  assert.equal(early.status, 401);
  assert.equal(early.headers.get('connection'), 'keep-alive');
});
