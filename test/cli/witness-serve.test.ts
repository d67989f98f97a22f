/**
 * `cards witness serve` refusing to start, as a process: a port in use is a usage error naming
 * the port (exit 2), as `cards serve` says it, not a raw errno; a folder another witness is
 * using is STORE_LOCKED, as a store is: two processes holding one witness key and state could
 * each cosign one side of a fork (C2SP tlog-witness v1.0.0 has a witness cosign only
 * checkpoints consistent with the last it cosigned). Its --ready-file, as `cards serve`'s: the
 * start-up document once it listens, gone at stop; a folder that is not there is refused. A
 * --dir the file system refuses is said with a next step naming --dir.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { generatePrivateKey } from '../../src/crypto/keys.js';
import { KEY_TYPE_ED25519, formatVerifierKey } from '../../src/log/note-keys.js';
import { CARDS_BIN, hermeticEnv, START_LIMIT_MS } from '../helpers/server.js';
import { sandbox } from './harness.js';

const logKey = formatVerifierKey(
  'example.com/log',
  KEY_TYPE_ED25519,
  generatePrivateKey().publicKey.raw,
);

test('witness serve on a port in use: exit 2 naming the port, --json one error document', async (t) => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  t.after(() => blocker.close());
  const port = String((blocker.address() as AddressInfo).port);
  const box = sandbox();
  t.after(() => box.cleanup());
  const args = ['witness', 'serve', '--log', logKey, '--dir', join(box.dir, 'w'), '--port', port];
  const text = await box.cards(args, { process: true });
  assert.equal(text.status, 2, text.stderr);
  assert.match(text.stderr, new RegExp(`Port ${port} is in use on 127\\.0\\.0\\.1`));
  assert.doesNotMatch(text.stderr, /EADDRINUSE|permissions/);
  const json = await box.cards(['--json', ...args], { process: true });
  assert.equal(json.status, 2, json.stderr);
  assert.equal(json.json<{ error: { name: string } }>().error.name, 'USAGE');
});

/** `cards witness serve ARGS…` as a process, once it has printed its key. */
async function started(args: readonly string[]) {
  const proc = spawn(process.execPath, [CARDS_BIN, ...args], {
    env: hermeticEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => proc.on('exit', resolve));
  let out = '';
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no start: ${out}`)), START_LIMIT_MS);
      proc.stdout.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        if (/^witness key: /m.test(out)) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
  } catch (err) {
    proc.kill('SIGKILL');
    throw err;
  }
  return { proc, exited };
}

test('a second witness serve on the folder another is using is refused (STORE_LOCKED, exit 1)', async (t) => {
  const box = sandbox();
  t.after(() => box.cleanup());
  const args = ['witness', 'serve', '--log', logKey, '--dir', join(box.dir, 'w'), '--port', '0'];
  const first = await started(args);
  t.after(() => first.proc.kill('SIGKILL'));
  const second = await box.cards(['--json', ...args], { process: true });
  assert.equal(second.status, 1, second.stderr);
  assert.equal(second.json<{ error: { name: string } }>().error.name, 'STORE_LOCKED');
  assert.match(second.stderr, new RegExp(`pid ${first.proc.pid}`));
  assert.match(second.stderr, /--dir/);
  // Stopped, the first frees the folder; killed (-9), its lock is stale and taken over.
  first.proc.kill('SIGTERM');
  assert.equal(await first.exited, 0);
  const again = await started(args);
  again.proc.kill('SIGKILL');
  await again.exited;
  const third = await started(args);
  third.proc.kill('SIGTERM');
  assert.equal(await third.exited, 0);
});

test('witness serve --ready-file: the --json document once listening, removed at stop', async (t) => {
  const box = sandbox();
  t.after(() => box.cleanup());
  const ready = join(box.dir, 'witness.ready');
  const args = ['witness', 'serve', '--log', logKey, '--dir', join(box.dir, 'w'), '--port', '0'];
  const run = await started([...args, '--ready-file', ready]);
  t.after(() => run.proc.kill('SIGKILL'));
  const info = JSON.parse(readFileSync(ready, 'utf8')) as Record<string, unknown>;
  assert.match(String(info.url), /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.match(String(info.vkey), /^localhost\/cards-witness\+[0-9a-f]{8}\+/);
  assert.equal(info.pid, run.proc.pid);
  assert.deepEqual(info.logs, ['example.com/log']);
  const answer = await fetch(`${String(info.url)}/add-checkpoint`, { method: 'POST', body: '' });
  assert.equal(answer.status >= 400 && answer.status < 500, true, 'it answers at that address');
  run.proc.kill('SIGTERM');
  assert.equal(await run.exited, 0);
  assert.equal(existsSync(ready), false, 'removed at stop');

  // A ready file a killed run left is gone as start-up begins: a start that fails (its port
  // taken) leaves none for a waiting script to read.
  const busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  t.after(() => busy.close());
  const port = String((busy.address() as AddressInfo).port);
  writeFileSync(ready, '{"url":"http://127.0.0.1:1","pid":1}\n');
  const taken = ['witness', 'serve', '--log', logKey, '--dir', join(box.dir, 'w'), '--port', port];
  const failed = await box.cards([...taken, '--ready-file', ready], { process: true });
  assert.equal(failed.status, 2, failed.stderr); // USAGE: the port is in use
  assert.equal(existsSync(ready), false, 'the left file removed');

  const nowhere = join(box.dir, 'missing', 'witness.ready');
  const refused = await box.cards([...args, '--ready-file', nowhere], { process: true });
  assert.equal(refused.status, 2, refused.stderr);
  assert.match(refused.stderr, /--ready-file .*there is no folder/);
});

test('witness serve --dir the file system refuses: the next step names --dir (exit 1)', async (t) => {
  const box = sandbox();
  t.after(() => box.cleanup());
  const file = join(box.dir, 'a-file');
  writeFileSync(file, 'not a folder\n');
  for (const dir of [file, join(file, 'w')]) {
    const args = ['witness', 'serve', '--log', logKey, '--dir', dir, '--port', '0'];
    const run = await box.cards(args, { process: true });
    assert.equal(run.status, 1, run.stderr);
    assert.match(run.stderr, /^error E[A-Z]+: /m);
    assert.match(run.stderr, /^ {2}check --dir: the witness key and state go in that folder/m);
    assert.doesNotMatch(run.stderr, /CARDS_HOME, --db, --out/);
    const json = await box.cards(['--json', ...args], { process: true });
    assert.match(json.json<{ error: { hint: string } }>().error.hint, /^check --dir/);
  }
});
