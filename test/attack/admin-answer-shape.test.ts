/**
 * A server whose admin answers are JSON but no admin answer: nested 100,000 deep, or of other
 * types than the admin API's schemas (GET /openapi.json) give. The CLI says "not a Cards
 * service" (NOT_A_SERVICE, exit 6). Without the checks `cards status`, `requests`, `history`,
 * `list`, `keyknox` and `key log` overflowed the stack escaping the answer for the terminal,
 * and `cards list` spread a number, `requests` mapped undefined, `history` read the length of
 * undefined, `key log` printed nothing for a key of the wrong type: each an "internal error"
 * with a stack trace (exit 1), or a wrong answer with exit 0 (`cards status`). An answer of
 * another media type than the route's (an HTML page answering every path) is NOT_A_SERVICE too:
 * `cards export` and `snapshot save` kept such a page as a dump of "5 cards", exit 0. A listing
 * whose cursor comes back is one too: `cards list --all` followed it without end (6,000 pages,
 * 1.25 GB in 20 s, past --timeout); and so is one whose cursor is new on every page while its
 * pages list no row, or rows listed before (docs/http.md: a walk reaches every row exactly once).
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

/** A server answering every request 200 with `body` as JSON. */
async function answering(body: string): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;

test('admin answers nested 100,000 deep: NOT_A_SERVICE, exit 6, never an internal error', async (t) => {
  const box = sandbox({});
  t.after(() => box.cleanup());
  const url = await answering(
    `{"version":${deep},"profile":"p","cards":1,"admin_auth":"token","log":null,"cards":${deep},"next_cursor":null}`,
  );
  for (const args of [
    ['status'],
    ['status', '--json'],
    ['requests'],
    ['history', 'alice'],
    ['list'],
    ['keyknox'],
    ['key', 'log'],
  ]) {
    const r = await box.cards([...args, '--url', url], { process: true });
    assert.equal(r.status, 6, said(r));
    assert.match(r.stderr, /^error NOT_A_SERVICE \(90019\): not a Cards service at /, said(r));
    assert.doesNotMatch(r.stderr, /internal error|\n\s+at /, said(r));
  }
});

test('admin answers of other types than the schemas give: NOT_A_SERVICE, exit 6', async (t) => {
  const box = sandbox({});
  t.after(() => box.cleanup());
  const url = await answering(
    JSON.stringify({
      version: 5,
      profile: null,
      cards: 'x',
      admin_auth: 7,
      log: { origin: 3, vkey: [], size: -1 },
      keyknox: 'x',
      requests: 1,
      identity: 'alice',
      chains: [{ revoked: 'no', cards: 1 }],
      next_cursor: 3,
    }),
  );
  for (const args of [
    ['status'],
    ['requests'],
    ['history', 'alice'],
    ['key', 'log'],
    ['reset', '--yes'],
    ['list'],
    ['list', '--all'],
    ['keyknox'],
    ['get', '0123456789'],
  ]) {
    const r = await box.cards([...args, '--url', url], { process: true });
    assert.doesNotMatch(r.stderr, /internal error|\n\s+at /, said(r));
    if (args[0] === 'get') continue;
    assert.equal(r.status, 6, said(r));
    assert.match(r.stderr, /^error NOT_A_SERVICE \(90019\): not a Cards service at /, said(r));
  }
});

test('an HTML page answering every path: export and snapshot save are NOT_A_SERVICE, nothing written', async (t) => {
  const box = sandbox({});
  t.after(() => box.cleanup());
  const server = createServer((req, res) => {
    req.resume();
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end('<html>\n<body>\nhello\n</body>\n</html>\n');
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  for (const args of [
    ['export', '--out', 'dump.ndjson'],
    ['export'],
    ['snapshot', 'save', 'page'],
  ]) {
    const r = await box.cards([...args, '--url', url], { process: true });
    assert.equal(r.status, 6, said(r));
    assert.ok(
      r.stderr.includes(
        `error NOT_A_SERVICE (90019): not a Cards service at ${url}: it answered GET adminExport with text/html, where the admin API answers application/x-ndjson.`,
      ),
      said(r),
    );
    assert.equal(r.stdout, '', said(r));
  }
  assert.equal(existsSync(join(box.dir, 'dump.ndjson')), false);
  const list = await box.cards(['snapshot', 'list', '--json']);
  assert.doesNotMatch(list.stdout, /"page"/, said(list));
});

test('a listing whose cursor comes back: list --all and keyknox --all stop, NOT_A_SERVICE', async (t) => {
  const box = sandbox({});
  t.after(() => box.cleanup());
  const row = {
    seq: 0,
    id: 'a'.repeat(64),
    identity: 'alice',
    state: 'active',
    previous_card_id: null,
    successor: null,
    revoked_by: null,
  };
  const blob = {
    api: 'v1',
    app: 'app',
    owner: 'alice',
    root: null,
    path: null,
    key: null,
    readers: [],
    size: 1,
    version: '1.0',
    hash: 'AA==',
    created: null,
    updated: null,
  };
  let pages = 0;
  const server = createServer((req, res) => {
    req.resume();
    pages++;
    // A cycle of two cursors: every page valid (a row not listed before), the listing without end.
    const next = new URL(req.url ?? '/', 'http://x').searchParams.get('cursor') === 'a' ? 'b' : 'a';
    const page = {
      cards: [{ ...row, seq: pages, id: String(pages).padStart(64, '0') }],
      keyknox: [{ ...blob, owner: `alice${pages}` }],
      next_cursor: next,
    };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(page));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  for (const [command, route] of [
    ['list', 'adminCards'],
    ['keyknox', 'adminKeyknox'],
  ] as const) {
    pages = 0;
    const r = await box.cards([command, '--all', '--url', url], { process: true });
    assert.equal(r.status, 6, said(r));
    assert.ok(
      r.stderr.includes(
        `error NOT_A_SERVICE (90019): not a Cards service at ${url}: its listing ${route} gave the cursor "a" a second time, a loop that never ends.`,
      ),
      said(r),
    );
    assert.equal(pages, 3);
  }
});

for (const [what, rows] of [
  ['lists rows listed before', (row: object) => [row]],
  ['lists no row', () => []],
] as const)
  test(`a listing with a new cursor on every page that ${what}: list --all and keyknox --all stop, NOT_A_SERVICE`, async (t) => {
    const box = sandbox({});
    t.after(() => box.cleanup());
    const card = {
      seq: 1,
      id: 'a'.repeat(64),
      identity: 'alice',
      state: 'active',
      previous_card_id: null,
      successor: null,
      revoked_by: null,
    };
    const blob = {
      api: 'v2',
      app: 'app',
      owner: 'alice',
      root: 'r',
      path: 'p',
      key: 'k',
      readers: ['alice'],
      size: 1,
      version: null,
      hash: 'AA==',
      created: null,
      updated: null,
    };
    let pages = 0;
    const server = createServer((req, res) => {
      req.resume();
      pages++;
      const page = { cards: rows(card), keyknox: rows(blob), next_cursor: `c${pages}` };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(page));
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    for (const [command, route] of [
      ['list', 'adminCards'],
      ['keyknox', 'adminKeyknox'],
    ] as const) {
      pages = 0;
      const r = await box.cards([command, '--all', '--url', url], { process: true });
      assert.equal(r.status, 6, said(r));
      assert.match(
        r.stderr,
        new RegExp(
          `^error NOT_A_SERVICE \\(90019\\): not a Cards service at ${url}: its listing ${route} `,
        ),
        said(r),
      );
      assert.match(r.stderr, /a walk that never ends/, said(r));
      assert.equal(pages, rows(card).length === 0 ? 1 : 2);
    }
  });
