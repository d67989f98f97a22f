/**
 * CLI time limits are whole-request deadlines: a server that trickles one
 * byte a second keeps an idle timeout happy forever, so every command that talks to a service,
 * `cards seed` included, must give up after --timeout SECONDS (env CARDS_TIMEOUT) in all,
 * with exit status 6 (unreachable).
 */
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { said, sandbox, type Sandbox } from './harness.js';

// The cases wait out their 2 s at once: each is its own command against the one trickling server.
describe('--timeout is a deadline for the whole request', { concurrency: true }, () => {
  let server: Server;
  let box: Sandbox;
  const open = new Set<ServerResponse>();
  before(async () => {
    server = createServer((req, res) => {
      req.resume();
      open.add(res);
      res.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => res.write(' '), 1000);
      res.on('close', () => {
        clearInterval(timer);
        open.delete(res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    box = sandbox({ CARDS_URL: `http://127.0.0.1:${port}`, CARDS_TOKEN: 'x.y.z' });
    writeFileSync(
      join(box.dir, 'seed.json'),
      JSON.stringify({
        version: 1,
        identities: [{ ref: 'alice', identity: 'alice', cards: [{ name: 'a' }] }],
      }),
    );
  });
  after(async () => {
    for (const res of open) res.destroy();
    await new Promise((resolve) => server.close(resolve));
    box.cleanup();
  });

  const cases: [string, string[], Record<string, string>][] = [
    ['get --timeout 2', ['get', 'a'.repeat(64), '--timeout', '2'], {}],
    ['search, CARDS_TIMEOUT=2', ['search', 'alice'], { CARDS_TIMEOUT: '2' }],
    ['seed --timeout 2', ['seed', 'seed.json', '--timeout', '2'], {}],
    // The log's reads (checkpoint, proofs, tiles) keep the same deadline.
    ['monitor --timeout 2', ['monitor', '--identity', 'alice', '--timeout', '2'], {}],
    // So do the admin API's (status, the journal, faults).
    ['status --timeout 2', ['status', '--timeout', '2'], {}],
    ['requests, CARDS_TIMEOUT=2', ['requests'], { CARDS_TIMEOUT: '2' }],
    ['faults list --timeout 2', ['faults', 'list', '--timeout', '2'], {}],
  ];
  for (const [what, args, env] of cases) {
    test(what, async () => {
      const started = Date.now();
      const r = await box.cards(args, { env });
      const elapsed = Date.now() - started;
      assert.equal(r.status, 6, said(r));
      assert.match(r.stderr, /no answer within 2 s|timed out/i, said(r));
      // The server trickles forever and the default deadline is 30 s: finishing well under that
      // shows the 2 s was taken (the message says which), with room for a loaded machine (a
      // CI run under load 7 took 5.5 s for node's start-up and the 2 s).
      assert.ok(elapsed < 15_000, `${what}: took ${elapsed} ms`);
    });
  }

  // An export streams for as long as the store takes: its deadline ends once the answer starts.
  test('export --timeout 2, from a server that never begins its answer', async () => {
    const waiting = new Set<ServerResponse>();
    const silent = createServer((req, res) => {
      req.resume();
      waiting.add(res);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as AddressInfo;
      const url = `http://127.0.0.1:${port}`;
      const r = await box.cards(['export', '--url', url, '--timeout', '2']);
      assert.equal(r.status, 6, said(r));
      assert.match(r.stderr, /no answer within 2 s/, said(r));
    } finally {
      for (const res of waiting) res.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  test('a bad --timeout is a usage error', async () => {
    const r = await box.cards(['get', 'a'.repeat(64), '--timeout', 'soon']);
    assert.equal(r.status, 2, said(r));
  });
});
