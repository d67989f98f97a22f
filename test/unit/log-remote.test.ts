/**
 * The errors a served log's refusals become in the CLI's log reader (src/cli/log-remote.ts):
 * the Error object's code read as the service writes it under either wire profile, a string
 * of digits (the Cards spec, section 2.5) or a number (the deployed service and
 * `cards serve --compat virgil`), an answer without a known code by its status, and a 5xx
 * naming a server-side code or none, the service failing (UNREACHABLE, docs/errors.md: exit 6). A real
 * HTTP server on a loopback port answers each case.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { RemoteLog } from '../../src/cli/log-remote.js';
import { isCardsError } from '../../src/core/errors.js';

const CASES: { status: number; body: string; code: string }[] = [
  { status: 404, body: '{"code":"91007","message":"m"}', code: 'LOG_NOT_INTEGRATED' },
  { status: 404, body: '{"code":91007,"message":"m"}', code: 'LOG_NOT_INTEGRATED' },
  { status: 404, body: '{"code":"91010","message":"m"}', code: 'LOG_DISABLED' },
  { status: 404, body: '{"code":91010,"message":"m"}', code: 'LOG_DISABLED' },
  { status: 404, body: '{"code":"10001","message":"m"}', code: 'CARD_NOT_FOUND' },
  { status: 404, body: '{"code":10001,"message":"m"}', code: 'CARD_NOT_FOUND' },
  // Codes the reader does not take over: by status.
  { status: 404, body: '{"code":10002,"message":"m"}', code: 'LOG_DISABLED' },
  { status: 404, body: '', code: 'LOG_DISABLED' },
  // The service failing (a 5xx: a server-side code, or none), as the card client has it.
  { status: 500, body: '{"code":10000,"message":"m"}', code: 'UNREACHABLE' },
  { status: 503, body: '{"code":"10006","message":"m"}', code: 'UNREACHABLE' },
  { status: 502, body: 'Bad Gateway', code: 'UNREACHABLE' },
  { status: 401, body: '{"code":"20304","message":"m"}', code: 'SERVICE_REFUSED' },
];

test('a refused proof or checkpoint is the code the service named, in either wire form', async (t) => {
  let answer = CASES[0]!;
  const server = createServer((_request, response) => {
    response.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => server.close());
  const remote = new RemoteLog(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 30);
  for (const c of CASES) {
    answer = c;
    for (const read of [() => remote.proof('a'.repeat(64)), () => remote.checkpoint()])
      await assert.rejects(read(), (err) => {
        assert.ok(isCardsError(err));
        assert.equal(err.code, c.code, `${c.status} ${c.body}`);
        return true;
      });
  }
});
