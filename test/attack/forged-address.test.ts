/**
 * The address file beside a store (`cards.json.address`) tells the CLI which server holds the
 * store, and the CLI sends that server the store's own credentials: the admin token file's
 * token and tokens minted with the store's app key. In a folder other users may write, another
 * user can put a file of theirs there (or make ours one they may rewrite) naming a server of
 * theirs and the pid that holds the store's lock. Such a file names no server: `cards list` and
 * `cards search`, given no URL, send nothing to the server it names.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, chownSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { serverInSandbox, type SandboxServer } from '../cli/server-sandbox.js';
import { BIN, type Sandbox } from '../cli/harness.js';

let server: SandboxServer;
let box: Sandbox;
let db: string;
/** A server of the other user: what it was sent. */
let theirs: Server;
let theirUrl: string;
const received: string[] = [];

before(async () => {
  ({ server, box } = await serverInSandbox({
    env: (s) => ({ CARDS_DB: join(s.dir, 'cards.json') }),
  }));
  db = join(server.dir, 'cards.json');
  chmodSync(server.dir, 0o777);
  theirs = createServer((request, response) => {
    received.push(`${request.method} ${request.url} ${request.headers.authorization ?? ''}`);
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  theirs.listen(0, '127.0.0.1');
  await once(theirs, 'listening');
  theirUrl = `http://127.0.0.1:${(theirs.address() as AddressInfo).port}`;
});
after(async () => {
  theirs.close();
  await Promise.all([server.dispose(), box.cleanup()]);
});

/** Puts an address file naming their server and the lock's pid (this process) in its place. */
function forge(owner: 'theirs' | 'ours, writable by all'): void {
  const forged = join(server.dir, '.forged');
  writeFileSync(forged, `${JSON.stringify({ url: theirUrl, pid: process.pid })}\n`);
  if (owner === 'theirs') chownSync(forged, 65534, 65534);
  else chmodSync(forged, 0o666);
  renameSync(forged, `${db}.address`);
}

for (const owner of ['theirs', 'ours, writable by all'] as const) {
  test(
    `an address file that is ${owner} gets no credentials sent to the server it names`,
    {
      skip:
        owner === 'theirs' && process.getuid?.() !== 0
          ? 'making a file of another user needs root'
          : false,
    },
    async () => {
      received.length = 0;
      forge(owner);
      await box.cards(['list']);
      await box.cards(['search', 'alice']);
      assert.deepEqual(received, [], 'their server was sent nothing');
    },
  );
}

test('the address file the server wrote still leads the CLI to it', async () => {
  // The server writes its address again as it starts: a restart on the same folder.
  await server.stop();
  const again = await serverInSandbox({ dir: server.dir, env: () => ({ CARDS_DB: db }) });
  try {
    const listed = await again.box.cards(['list', '--json']);
    assert.equal(listed.status, 0, listed.stderr);
  } finally {
    await again.server.stop();
    again.box.cleanup();
  }
});

test(
  "the address file of the store's owner leads another user's CLI to the server",
  { skip: process.getuid?.() !== 0 ? 'running the CLI as another user needs root' : false },
  async () => {
    // A server run by the store's owner, and a user who may not read the store's secrets
    // running the CLI in its folder with a token of their own: the file is the server's.
    const again = await serverInSandbox({ dir: server.dir, env: () => ({ CARDS_DB: db }) });
    const home = mkdtempSync(join(tmpdir(), 'cards-other-'));
    chmodSync(home, 0o777);
    try {
      const minted = await again.box.cards(['jwt', '--identity', 'bob']);
      assert.equal(minted.status, 0, minted.stderr);
      // Spawned without blocking: the server answers from this process.
      const other = await promisify(execFile)(
        process.execPath,
        [BIN, 'search', 'alice', '--json'],
        {
          cwd: server.dir,
          uid: 65534,
          gid: 65534,
          env: {
            PATH: process.env.PATH ?? '',
            HOME: home,
            NO_COLOR: '1',
            CARDS_DB: db,
            CARDS_TOKEN: minted.stdout.trim(),
          },
        },
      );
      const found = JSON.parse(other.stdout) as { results: { identity: string }[] };
      assert.deepEqual(
        found.results.map((r) => r.identity),
        ['alice'],
      );
    } finally {
      await again.server.stop();
      again.box.cleanup();
      rmSync(home, { recursive: true, force: true });
    }
  },
);
