/**
 * A Cards server answers on whatever port it was given, and every client of the CLI reaches it
 * there: the card routes, the admin API (status, requests, export) and the log (monitor), on a
 * port the Fetch Standard's port blocking refuses (§2.9 "bad port"; 6000, 6665-6669, 10080 …),
 * where the global fetch fails without a connection. The server runs in this process on port 0;
 * a loopback relay puts it on the first blocked port free on this machine.
 */
import assert from 'node:assert/strict';
import { connect, createServer, type Server } from 'node:net';
import { after, before, test } from 'node:test';
import { said, type Sandbox } from './harness.js';
import { serverInSandbox, type SandboxServer } from './server-sandbox.js';

/** Ports fetch refuses to connect to (Fetch §2.9), the unprivileged ones. */
const BLOCKED = [6000, 6665, 6666, 6667, 6668, 6669, 6697, 10080, 4190, 5060, 5061, 6566];

let server: SandboxServer;
let box: Sandbox;
let relay: Server;
let url: string;

/** A relay from a blocked loopback port to `target`, on the first of BLOCKED that is free. */
async function relayOnBlockedPort(target: URL): Promise<{ relay: Server; port: number }> {
  for (const port of BLOCKED) {
    const relay = createServer((socket) => {
      const upstream = connect(Number(target.port), target.hostname);
      socket.pipe(upstream).pipe(socket);
      socket.on('error', () => upstream.destroy());
      upstream.on('error', () => socket.destroy());
    });
    const bound = await new Promise<boolean>((resolve) => {
      relay.once('error', () => resolve(false));
      relay.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (bound) return { relay, port };
  }
  throw new Error(`none of the ports ${BLOCKED.join(', ')} is free on 127.0.0.1`);
}

before(async () => {
  ({ server, box } = await serverInSandbox());
  const bound = await relayOnBlockedPort(new URL(server.url));
  relay = bound.relay;
  url = `http://127.0.0.1:${bound.port}`;
});
after(async () => {
  relay.close();
  await Promise.all([server.dispose(), box.cleanup()]);
});

test('every command reaches a server on a port fetch blocks', async () => {
  const token = await server.token('alice');
  const created = await box.cards([
    'create',
    '--identity',
    'alice',
    '--new-key',
    '--url',
    url,
    '--token',
    token,
    '--json',
  ]);
  assert.equal(created.status, 0, said(created));
  const id = created.json<{ id: string }>().id;
  const got = await box.cards(['get', id, '--url', url, '--token', token]);
  assert.equal(got.status, 0, said(got));
  for (const args of [['status'], ['requests'], ['export'], ['monitor', '--identity', 'alice']]) {
    const r = await box.cards([...args, '--url', url]);
    assert.equal(r.status, 0, `cards ${args.join(' ')}: ${said(r)}`);
    assert.doesNotMatch(r.stderr, /bad port/);
  }
  const exported = await box.cards(['export', '--url', url]);
  assert.ok(exported.stdout.includes(id), said(exported));
});
