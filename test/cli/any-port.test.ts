/**
 * A Cards server answers on whatever port it was given, and every client of the CLI reaches it
 * there: the card routes, the admin API (status, requests, export) and the log (monitor), on a
 * port the Fetch Standard's port blocking refuses (§2.9 "bad port"; 6000, 6665-6669, 10080 …),
 * where the global fetch fails without a connection. The banner says browsers cannot reach it.
 * The server runs in this process on the first such port free on this machine.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { said, type Sandbox } from './harness.js';
import { serverInSandbox, type SandboxServer } from './server-sandbox.js';

/** Unprivileged ports fetch refuses to connect to (Fetch §2.9). */
const BLOCKED = [6000, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080, 4190, 5060, 5061, 6566];

let server: SandboxServer;
let box: Sandbox;

before(async () => {
  for (const port of BLOCKED) {
    try {
      ({ server, box } = await serverInSandbox({ args: ['--port', String(port)] }));
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    }
  }
  throw new Error(`none of the ports ${BLOCKED.join(', ')} is free on 127.0.0.1`);
});
after(() => Promise.all([server.dispose(), box.cleanup()]));

test('every command reaches a server on a port fetch blocks', async () => {
  const { port } = new URL(server.url);
  assert.ok(BLOCKED.includes(Number(port)), server.url);
  assert.match(server.stdout(), new RegExp(`^note: browsers refuse port ${port} `, 'm'));
  const created = await box.cards(['create', '--identity', 'alice', '--new-key', '--json']);
  assert.equal(created.status, 0, said(created));
  const id = created.json<{ id: string }>().id;
  const got = await box.cards(['get', id]);
  assert.equal(got.status, 0, said(got));
  for (const args of [['status'], ['requests'], ['export'], ['monitor', '--identity', 'alice']]) {
    const r = await box.cards(args);
    assert.equal(r.status, 0, `cards ${args.join(' ')}: ${said(r)}`);
    assert.doesNotMatch(r.stderr, /bad port/);
  }
  const exported = await box.cards(['export']);
  assert.ok(exported.stdout.includes(id), said(exported));
});

test('a server on any other port says nothing of browsers', async () => {
  const other = await serverInSandbox();
  try {
    assert.doesNotMatch(other.server.stdout(), /browsers refuse/);
  } finally {
    await Promise.all([other.server.dispose(), other.box.cleanup()]);
  }
});
