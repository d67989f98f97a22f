/**
 * `cards import --url` streams the dump to the admin API, and the deadline (--timeout) bounds
 * how long the upload may make no progress: a server that stops taking the body, or takes it
 * all and never answers, is UNREACHABLE (exit 6) once that long has passed, not a wait without
 * end. A slow server that keeps taking the body is not cut off.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { said, sandbox } from './harness.js';

const servers: Server[] = [];
after(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function serving(handle: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = createServer(handle);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const line = `${JSON.stringify({ id: 'a'.repeat(64), identity: 'alice', content_snapshot: 'QQ==', signatures: [] })}\n`;

/** A dump of `cards` lines: 27 MB at 200,000, more than a loopback connection buffers. */
function dump(dir: string, cards: number): string {
  const path = join(dir, 'dump.ndjson');
  writeFileSync(path, line.repeat(cards));
  return path;
}

const answered = (res: ServerResponse): void => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({
      imported: 200_000,
      skipped: 0,
      keyknox: { imported: 0, skipped: 0 },
      cards: 200_000,
    }),
  );
};

const stalls: [string, (req: IncomingMessage, res: ServerResponse) => void][] = [
  ['stops taking the body', (req) => req.pause()],
  ['takes the body and never answers', (req) => req.resume()],
];

for (const [what, handle] of stalls) {
  test(`an import to a server that ${what}: UNREACHABLE after --timeout without progress`, async (t) => {
    const box = sandbox({});
    t.after(() => box.cleanup());
    const url = await serving(handle);
    const started = Date.now();
    const r = await box.cards(
      ['import', dump(box.dir, 200_000), '--url', url, '--admin-token', 't', '--timeout', '1'],
      { process: true },
    );
    assert.equal(r.status, 6, said(r));
    assert.match(r.stderr, /UNREACHABLE .*could not be reached \(no progress for 1 s\)/, said(r));
    assert.ok(Date.now() - started < 60_000, 'it gave up');
  });
}

test('an import to a server that takes the body in spurts for longer than --timeout is answered', async (t) => {
  const box = sandbox({});
  t.after(() => box.cleanup());
  let took = 0;
  const url = await serving((req, res) => {
    const started = Date.now();
    // A rest of 0.3 s after every 2 MB: seconds in all, each rest far below the deadline, and
    // what the connection holds when the last byte is sent read within it too.
    let read = 0;
    req.on('data', (chunk: Buffer) => {
      read += chunk.length;
      if (read < 2 << 20) return;
      read = 0;
      req.pause();
      setTimeout(() => req.resume(), 300);
    });
    req.on('end', () => {
      if (req.method === 'POST') took = Date.now() - started;
      answered(res);
    });
  });
  const r = await box.cards(
    [
      'import',
      dump(box.dir, 200_000),
      '--url',
      url,
      '--admin-token',
      't',
      '--timeout',
      '3',
      '--json',
    ],
    { process: true },
  );
  assert.equal(r.status, 0, said(r));
  assert.equal(r.json<{ imported: number }>().imported, 200_000);
  assert.ok(took > 3000, `the upload took ${took} ms, longer than the deadline`);
});
