/**
 * A server that never stops answering: the CLI reads no answer past a bound (the card routes' and
 * the admin API's LIMITS.answerMax; a log's largest entry bundle, C2SP tlog-tiles) and says "not
 * a Cards service" (exit 6) at once. Without the bound `cards get`, `cards verify` and `cards log audit`
 * buffered until their deadline (2 GB in 30 s here, then a misleading "no answer within 30 s"),
 * and an answer over 512 MiB that did end crashed `cards get` with a raw ERR_STRING_TOO_LONG.
 * `cards snapshot save`, which keeps an export in memory to write it whole, read it without end
 * and past its --timeout (11 GB of memory in 60 s with --timeout 5).
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { said, sandbox } from '../cli/harness.js';

const servers: Server[] = [];
after(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A server answering every request 200 with bytes that never end, until the client leaves. */
async function flooding(type: string): Promise<string> {
  const chunk = Buffer.alloc(1 << 20, 0x41);
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': type });
    const pump = (): void => {
      while (!res.destroyed && res.write(chunk));
    };
    res.on('drain', pump);
    res.on('close', () => res.removeListener('drain', pump));
    pump();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const id = 'a'.repeat(64);
const LOG_KEY =
  'cards.local/6b061cff3d289aed+9238a154+ARlO8iEo8hjMw9Xtx+ZNULCt+u9RXlktHTsskKMB6OuP';

test('an answer that never ends: cards get and search give up at the bound, exit 6', async (t) => {
  const box = sandbox({ CARDS_TOKEN: 'x.y.z' });
  t.after(() => box.cleanup());
  const url = await flooding('application/json');
  for (const args of [
    ['get', id],
    ['search', 'alice'],
  ]) {
    const r = await box.cards([...args, '--url', url, '--timeout', '60'], { process: true });
    assert.equal(r.status, 6, said(r));
    assert.match(r.stderr, /NOT_A_SERVICE/, said(r));
    assert.ok(
      r.stderr.includes(`not a Cards service at ${url}: answered more than 256 MiB`),
      said(r),
    );
    assert.doesNotMatch(r.stderr, /no answer within|ERR_STRING_TOO_LONG|\n\s+at /, said(r));
  }
});

test('an admin answer that never ends: cards status and requests give up at the bound, exit 6', async (t) => {
  const box = sandbox({});
  t.after(() => box.cleanup());
  const url = await flooding('application/json');
  for (const args of [['status'], ['requests']]) {
    const r = await box.cards([...args, '--url', url, '--timeout', '60'], { process: true });
    assert.equal(r.status, 6, said(r));
    assert.ok(
      r.stderr.includes(`not a Cards service at ${url}: answered more than 256 MiB`),
      said(r),
    );
    assert.doesNotMatch(r.stderr, /no answer within|ERR_STRING_TOO_LONG|\n\s+at /, said(r));
  }
});

test('a log that never ends its checkpoint: log audit gives up at 16 MiB, exit 6', async (t) => {
  const box = sandbox({ CARDS_TOKEN: 'x.y.z' });
  t.after(() => box.cleanup());
  const url = await flooding('text/plain; charset=utf-8');
  const audit = await box.cards(
    ['log', 'audit', '--url', url, '--log-key', LOG_KEY, '--no-cards', '--timeout', '60'],
    { process: true },
  );
  assert.equal(audit.status, 6, said(audit));
  assert.match(audit.stderr, /NOT_A_SERVICE/, said(audit));
  assert.ok(
    audit.stderr.includes(
      `The log at ${url} answered /log/checkpoint with more than 16 MiB, more than any checkpoint, proof or tile holds.`,
    ),
    said(audit),
  );
});

test('an export that never ends: snapshot save gives up at 256 MiB, exit 6, no snapshot', async (t) => {
  const box = sandbox({});
  t.after(() => box.cleanup());
  const url = await flooding('application/x-ndjson');
  const r = await box.cards(['snapshot', 'save', 's1', '--url', url, '--timeout', '60'], {
    process: true,
  });
  assert.equal(r.status, 6, said(r));
  assert.ok(
    r.stderr.includes(
      `error NOT_A_SERVICE (90019): ${url} answered its export with more than 256 MiB, more than a snapshot keeps.`,
    ),
    said(r),
  );
  assert.doesNotMatch(r.stderr, /internal error|ERR_STRING_TOO_LONG|\n\s+at /, said(r));
  const list = await box.cards(['snapshot', 'list', '--json']);
  assert.equal(list.status, 0, said(list));
  assert.doesNotMatch(list.stdout, /"s1"/, said(list));
});
