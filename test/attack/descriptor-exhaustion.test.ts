/**
 * Idle connections by the thousand against a real `cards serve`, whose open files are limited
 * (prlimit, as `ulimit -n` would): however many a client opens, the server keeps the file
 * descriptors it needs. Connections past twice `--max-connections` are closed as they are
 * accepted, and a limit of open files too low for that lowers the connections served, with a
 * warning. Without it, the connections took every descriptor: the first token then checked
 * loaded its verifier's modules, which failed (EMFILE), and node keeps a failed module load
 * for the process's life, so every request with a token was a 500 until a restart, long after
 * the connections were gone.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parsePrivateKey } from '../../src/crypto/keys.js';
import { CARDS_BIN, hermeticEnv, startServer, testToken } from '../helpers/server.js';

const hasPrlimit = spawnSync('prlimit', ['--version']).status === 0;
const onLinux = process.platform === 'linux';
const skip = !onLinux ? 'needs Linux (/proc)' : hasPrlimit ? false : 'needs prlimit (util-linux)';

/** Opens `n` connections that send nothing; resolves once each is open or refused. */
async function idleConnections(url: string, n: number): Promise<Socket[]> {
  const { hostname, port } = new URL(url);
  const sockets: Socket[] = [];
  await Promise.all(
    Array.from({ length: n }, async () => {
      const socket = connect(Number(port), hostname);
      socket.on('error', () => undefined);
      sockets.push(socket);
      await Promise.race([once(socket, 'connect'), once(socket, 'close')]);
    }),
  );
  return sockets;
}

/** One request on `agent` (a kept-alive connection): its status and body. */
function send(
  url: string,
  agent: Agent,
  method: string,
  path: string,
  token?: string,
  body?: string,
): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: hostname,
        port,
        method,
        path,
        agent,
        headers: {
          ...(token && { authorization: `Service ${token}` }),
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const descriptors = (pid: number): number => readdirSync(`/proc/${pid}/fd`).length;

/**
 * The attack and what must hold: a connection opened before the flood is answered during it
 * (a token checked for the first time then), and a new one once the flood is gone.
 */
async function floodAndAsk(
  url: string,
  pid: number,
  token: string,
  flood: number,
  openFiles: number,
): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const search = JSON.stringify({ identity: 'alice' });
  try {
    assert.equal((await send(url, agent, 'GET', '/health')).status, 200);
    const sockets = await idleConnections(url, flood);
    try {
      const held = descriptors(pid);
      assert.ok(held < openFiles, `the server holds ${held} descriptors of ${openFiles}`);
      const during = await send(url, agent, 'POST', '/card/v5/actions/search', token, search);
      assert.equal(during.status, 200, `a search during the flood: ${during.text}`);
    } finally {
      for (const socket of sockets) socket.destroy();
    }
    const after = await fetch(`${url}/card/v5/actions/search`, {
      method: 'POST',
      headers: { authorization: `Service ${token}`, 'content-type': 'application/json' },
      body: search,
    });
    assert.equal(after.status, 200, `a search after the flood: ${await after.text()}`);
  } finally {
    agent.destroy();
  }
}

test(
  'connections past twice --max-connections are closed as accepted: the server keeps its descriptors',
  { skip },
  async (t) => {
    const server = await startServer({ args: ['--quiet', '--max-connections', '100'] });
    t.after(() => server.dispose());
    const pid = server.proc.pid as number;
    // 400 open files: room for 200 connections and what the server opens itself.
    assert.equal(spawnSync('prlimit', ['--pid', String(pid), '--nofile=400:400']).status, 0);
    await floodAndAsk(server.url, pid, await server.token('alice'), 800, 400);
    assert.doesNotMatch(server.stderr(), /internal error/);
  },
);

test(
  'an open-file limit below what --max-connections needs lowers the connections served, with a warning',
  { skip },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'cards-descriptors-'));
    const db = join(dir, 'cards.json');
    const child = spawn(
      'prlimit',
      ['--nofile=600:600', '--', process.execPath, CARDS_BIN, 'serve', '--port', '0', '--db', db],
      { env: hermeticEnv({ NO_COLOR: '1', CARDS_QUIET: '1' }), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    t.after(async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
      rmSync(dir, { recursive: true, force: true });
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    while (!/^listening on (\S+)$/m.test(stdout)) {
      if (child.exitCode !== null) assert.fail(`cards serve exited: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const url = (/^listening on (\S+)$/m.exec(stdout) as RegExpExecArray)[1] as string;
    const appKey = parsePrivateKey(readFileSync(`${db}.app-key.pem`, 'utf8'));
    await floodAndAsk(url, child.pid as number, testToken(appKey, 'alice'), 1500, 600);
    assert.doesNotMatch(stderr, /internal error/);
    // The default --max-connections is 1024: 600 open files leave room for 472.
    assert.match(stderr, /open-file limit \(600\) leaves room for 472 connections/);
  },
);
