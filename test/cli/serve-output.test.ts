/**
 * `cards serve` outlives its output: with its stdout and stderr pipes closed by their reader
 * (`cards serve 2>&1 | head -2`), or stderr on a full disk (/dev/full: ENOSPC), it goes on
 * answering requests, and /metrics counts the writes it dropped.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
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
