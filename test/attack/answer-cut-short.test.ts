/**
 * A server that closes its connection part-way through an admin answer (a crash, a proxy's
 * timeout, a dropped link): the CLI says the service stopped answering (UNREACHABLE, exit 6),
 * as it does for a connection refused or reset, and `cards export --out` leaves no partial dump
 * behind. A cut answer is never an "internal error" with a stack: the cards exported so far are
 * not the store, and nothing in cards is at fault.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { said, sandbox } from '../cli/harness.js';

const servers: Server[] = [];
after(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A server that starts every answer (200, `type`), writes `body`, then drops the connection. */
async function cutting(type: string, body: string): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': type });
    res.write(body, () => setTimeout(() => req.socket.destroy(), 20));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const line = `${JSON.stringify({ id: 'a'.repeat(64), identity: 'alice', content_snapshot: 'QQ==', signatures: [] })}\n`;

test('an export cut short: UNREACHABLE, exit 6, no partial --out file', async (t) => {
  const box = sandbox({});
  t.after(() => box.cleanup());
  const url = await cutting('application/x-ndjson', line.repeat(1000));
  const out = join(box.dir, 'dump.ndjson');
  const r = await box.cards(['export', '--url', url, '--admin-token', 't', '--out', out], {
    process: true,
  });
  assert.equal(r.status, 6, said(r));
  assert.match(r.stderr, /UNREACHABLE/, said(r));
  assert.ok(r.stderr.includes(`The service at ${url} stopped answering`), said(r));
  assert.doesNotMatch(r.stderr, /internal error|\n\s+at /, said(r));
  assert.equal(existsSync(out), false, 'no partial dump is left');
});

test('an admin JSON answer cut short: UNREACHABLE, exit 6', async (t) => {
  const box = sandbox({});
  t.after(() => box.cleanup());
  const url = await cutting('application/json', '{"version":"1",');
  for (const args of [['status'], ['requests']]) {
    const r = await box.cards([...args, '--url', url, '--admin-token', 't'], { process: true });
    assert.equal(r.status, 6, said(r));
    assert.match(r.stderr, /UNREACHABLE/, said(r));
    assert.doesNotMatch(r.stderr, /internal error|\n\s+at /, said(r));
  }
});
