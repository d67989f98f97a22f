/**
 * An import cut off says what was stored, and run again with --append it completes: the cards
 * stored already, identically, are skipped and counted (docs/http.md, import; docs/cli.md).
 * - A dump whose body takes longer to arrive than `--request-timeout` is imported whole by
 *   `POST /_cards/import` (its body may be any size, so it is not cut at the request timeout
 *   while it keeps arriving): the server cut it with 408, the cards before the cut stored.
 * - `cards import --url` cut off by the connection (a relay that drops it half-way) exits 6 and
 *   names what the registry holds; the same import with --append then completes.
 * - Two imports of one dump with append=true at once (a rerun while the cut one is still being
 *   stored): both complete, each card stored once; the one that lost a race counted it skipped.
 * - `cards import --store --append` run again skips the cards stored (JSON and PostgreSQL),
 *   where it stopped at the first with 40027.
 * - `cards import --url` of a dump with a line longer than an import takes is refused naming the
 *   line (IMPORT_LINE_TOO_LONG, exit 4) every time: the client bounds the lines it sends as the
 *   server does, where the server's 413 closed the connection mid-send and the client often
 *   read a broken pipe (UNREACHABLE, exit 6).
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { said, sandbox, type Sandbox } from '../cli/harness.js';
import { freshStoreUrl } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { makeCard } from '../http/card-kit.js';

const SERVICE = { signer: 'service', signature: Buffer.alloc(64, 9).toString('base64') };

/** A dump of `n` cards of distinct identities, as `cards export` writes one. */
function dump(n: number, tag: string): string[] {
  return Array.from({ length: n }, (_, i) => {
    const card = makeCard(`${tag}-${i}`);
    return `${JSON.stringify({
      id: card.id,
      identity: `${tag}-${i}`,
      content_snapshot: card.raw.content_snapshot,
      signatures: [...card.raw.signatures, SERVICE],
    })}\n`;
  });
}

const held = async (server: TestServer): Promise<number> =>
  ((await (await fetch(`${server.url}/_cards/info`)).json()) as { cards: number }).cards;

/** A relay to `port` that forwards `bytes` bytes of the client's request, then cuts both ends. */
async function cuttingRelay(port: number, bytes: number): Promise<Server> {
  const relay = createServer((client: Socket) => {
    const upstream = createConnection({ port, host: '127.0.0.1' });
    let sent = 0;
    client.on('data', (chunk: Buffer) => {
      const room = bytes - sent;
      if (room > 0) upstream.write(chunk.subarray(0, room));
      sent += chunk.length;
      if (sent >= bytes) {
        client.destroy();
        upstream.end();
      }
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  return relay;
}

describe('an import cut off is told as stored and completed by a rerun with --append', () => {
  let server: TestServer;
  let box: Sandbox;
  before(async () => {
    server = await startServer({ args: ['--quiet', '--request-timeout', '1'] });
    box = sandbox({ CARDS_DB: server.paths.store });
  });
  after(async () => {
    await server.dispose();
    box.cleanup();
  });

  test('a body arriving for longer than --request-timeout is imported whole', async () => {
    const lines = dump(40, 'slow');
    let i = 0;
    const body = new ReadableStream<Uint8Array>({
      // 40 lines over about 2 s, with --request-timeout 1.
      async pull(controller) {
        if (i === lines.length) return controller.close();
        await new Promise((resolve) => setTimeout(resolve, 50));
        controller.enqueue(Buffer.from(lines[i++]!));
      },
    });
    const before = await held(server);
    const response = await fetch(`${server.url}/_cards/import?append=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body,
      duplex: 'half',
    } as RequestInit);
    const answer = await response.text();
    assert.equal(response.status, 200, answer);
    assert.equal((JSON.parse(answer) as { imported: number }).imported, 40);
    assert.equal(await held(server), before + 40);
  });

  test('cards import --url cut half-way names what is stored; --append then completes it', async () => {
    const lines = dump(300, 'cut');
    const file = join(box.dir, 'cut.ndjson');
    writeFileSync(file, lines.join(''));
    const before = await held(server);
    const relay = await cuttingRelay(Number(new URL(server.url).port), 60_000);
    const relayUrl = `http://127.0.0.1:${(relay.address() as { port: number }).port}`;
    const cut = await box.cards(['import', file, '--append', '--url', relayUrl]);
    relay.close();
    assert.equal(cut.status, 6, said(cut));
    // What the server says it holds is what the client names (the relay forwards the count).
    const holds = /The registry holds (\d+) cards? \((\d+) before this import\)/.exec(cut.stderr);
    assert.ok(holds, said(cut));
    assert.equal(Number(holds[2]), before);
    const stored = Number(holds[1]) - before;
    assert.ok(stored < 300, `${stored} stored of 300 before the cut`);
    assert.match(cut.stderr, /run the same import again with --append/);
    // The server may still be storing the lines it read: the rerun skips or stores each.
    const rerun = await box.cards(['import', file, '--append', '--url', server.url, '--json']);
    assert.equal(rerun.status, 0, said(rerun));
    const result = rerun.json<{ imported: number; skipped: number; cards: number }>();
    assert.equal(result.imported + result.skipped, 300);
    assert.ok(result.skipped >= stored, `${result.skipped} skipped, ${stored} stored before`);
    assert.equal(result.cards, before + 300);
    assert.equal(await held(server), before + 300);
  });

  test('cards import --url of a dump with a line too long says so, naming the line, every time', async () => {
    const file = join(box.dir, 'long-line.ndjson');
    writeFileSync(file, `${dump(3, 'long').join('')}{"id":"${'a'.repeat(30_000_000)}"}\n`);
    for (let run = 0; run < 5; run++) {
      const refused = await box.cards(['import', file, '--append', '--url', server.url]);
      assert.equal(refused.status, 4, said(refused));
      assert.match(refused.stderr, /IMPORT_LINE_TOO_LONG \(30103\): Import line 4 is longer/);
      assert.match(refused.stderr, /The registry holds \d+ cards? \(\d+ before this import\)/);
    }
  });

  test('two imports of one dump at once with append=true both complete, each card stored once', async () => {
    const body = dump(400, 'twice').join('');
    const before = await held(server);
    const post = () =>
      fetch(`${server.url}/_cards/import?append=true`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson' },
        body,
      }).then(async (response) => ({ status: response.status, text: await response.text() }));
    const answers = await Promise.all([post(), post()]);
    for (const answer of answers) {
      assert.equal(answer.status, 200, answer.text);
      const { imported, skipped } = JSON.parse(answer.text) as {
        imported: number;
        skipped: number;
      };
      assert.equal(imported + skipped, 400, answer.text);
    }
    assert.equal(await held(server), before + 400);
  });

  for (const engine of ['JSON', 'PostgreSQL'] as const) {
    test(`cards import --store --append run again skips what is stored (${engine})`, async () => {
      const lines = dump(50, `store-${engine}`);
      const first = join(box.dir, `first-${engine}.ndjson`);
      const whole = join(box.dir, `whole-${engine}.ndjson`);
      writeFileSync(first, lines.slice(0, 20).join(''));
      writeFileSync(whole, lines.join(''));
      const store = engine === 'JSON' ? join(box.dir, 'store-append.json') : await freshStoreUrl();
      const made = await box.cards(['import', first, '--store', store]);
      assert.equal(made.status, 0, said(made));
      const rerun = await box.cards(['import', whole, '--store', store, '--append', '--json']);
      assert.equal(rerun.status, 0, said(rerun));
      assert.deepEqual(
        (({ imported, skipped }) => ({ imported, skipped }))(
          rerun.json<{ imported: number; skipped: number }>(),
        ),
        { imported: 30, skipped: 20 },
      );
      const again = await box.cards(['import', whole, '--store', store, '--append', '--json']);
      assert.equal(again.status, 0, said(again));
      assert.equal(again.json<{ skipped: number }>().skipped, 50);
    });
  }
});
