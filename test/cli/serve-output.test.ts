/**
 * `cards serve` outlives its output: with its stdout and stderr pipes closed by their reader
 * (`cards serve 2>&1 | head -2`), stderr on a full disk (/dev/full: ENOSPC), or stderr a pipe
 * no one reads (`cards serve 2>&1 | sleep 600`), it goes on answering requests, and /metrics
 * counts the writes it dropped.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, openSync, closeSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, test } from 'node:test';
import {
  CARDS_BIN,
  hermeticEnv,
  makeTempDir,
  removeTempDirs,
  START_LIMIT_MS,
} from '../helpers/server.js';

after(removeTempDirs);

/** The server's URL from its first stdout line ("listening on URL"). */
function firstLine(proc: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no banner: ${out}`)), START_LIMIT_MS);
    proc.stdout?.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const url = /^listening on (\S+)$/m.exec(out)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve(url);
      }
    });
    proc.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
}

async function stillServing(proc: ChildProcess, url: string): Promise<number> {
  for (let i = 0; i < 20; i++) {
    const res = await fetch(`${url}/health`);
    assert.equal(res.status, 200);
    await res.arrayBuffer();
  }
  assert.equal(proc.exitCode, null, 'the server is running');
  const metrics = await (await fetch(`${url}/metrics`)).text();
  return Number(/^cards_output_writes_dropped_total (\d+)$/m.exec(metrics)?.[1]);
}

/** Sends `count` GETs of `path` on one connection, pipelined, and reads their answers. */
function pipelined(url: string, path: string, count: number): Promise<void> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let answered = 0;
    let tail = '';
    socket.setEncoding('latin1').on('data', (d: string) => {
      const text = tail + d;
      answered += text.split('HTTP/1.1 ').length - 1;
      tail = text.slice(-8);
      if (answered < count) return;
      socket.destroy();
      resolve();
    });
    socket.on('error', reject);
    socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`.repeat(count));
  });
}

const serveArgs = (dir: string): string[] => [
  CARDS_BIN,
  'serve',
  '--port',
  '0',
  '--store',
  join(dir, 'cards.json'),
];

test('stdout and stderr closed by their reader: requests are still answered', async (t) => {
  const dir = makeTempDir();
  const proc = spawn(process.execPath, serveArgs(dir), {
    env: hermeticEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.after(() => proc.kill('SIGKILL'));
  const url = await firstLine(proc);
  proc.stdout?.destroy();
  proc.stderr?.destroy();
  const dropped = await stillServing(proc, url);
  assert.ok(dropped > 0, `dropped ${dropped}`);
});

test('stderr on a full disk: requests are still answered', async (t) => {
  const dir = makeTempDir();
  const full = openSync('/dev/full', 'w');
  const proc = spawn(process.execPath, serveArgs(dir), {
    env: hermeticEnv(),
    stdio: ['ignore', 'pipe', full],
  });
  closeSync(full);
  t.after(() => proc.kill('SIGKILL'));
  const url = await firstLine(proc);
  const dropped = await stillServing(proc, url);
  assert.ok(dropped > 0, `dropped ${dropped}`);
});

test('stderr a pipe no one reads: requests are still answered, the log lines past 1 MiB dropped', async (t) => {
  const dir = makeTempDir();
  const ready = join(dir, 'ready.json');
  // The pipe's reader is alive and never reads: its 64 KiB fill, then every line waits for it.
  const line = [...serveArgs(dir), '--ready-file', ready]
    .map((arg) => `'${arg.replaceAll("'", "'\\''")}'`)
    .join(' ');
  const shell = spawn('sh', ['-c', `'${process.execPath}' ${line} 2>&1 >/dev/null | sleep 600`], {
    env: hermeticEnv(),
    stdio: 'ignore',
    detached: true,
  });
  t.after(() => process.kill(-(shell.pid as number), 'SIGKILL'));
  const started = Date.now();
  while (!existsSync(ready)) {
    assert.ok(Date.now() - started < START_LIMIT_MS, 'no ready file');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const { url } = JSON.parse(readFileSync(ready, 'utf8')) as { url: string };
  // About 2 MiB of request lines (a long path makes a line of some 250 bytes).
  const path = `/${'x'.repeat(2000)}`;
  for (let round = 0; round < 8; round++) await pipelined(url, path, 1000);
  const metrics = await (await fetch(`${url}/metrics`)).text();
  const dropped = Number(/^cards_output_writes_dropped_total (\d+)$/m.exec(metrics)?.[1]);
  assert.ok(dropped > 0, `dropped ${dropped}`);
  assert.equal((await fetch(`${url}/health`)).status, 200);
});
