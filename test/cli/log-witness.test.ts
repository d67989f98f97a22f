/**
 * Witnessed log end to end, two processes (C2SP tlog-witness v1.0.0): `cards witness serve`
 * (a process) trusts the log's key; `cards serve --witness URL --witness-key VKEY` (in the
 * test's process, in-process-server.ts: its options on a real port) submits every new
 * checkpoint and serves it with the cosignature; `cards verify --witness VKEY` accepts it and
 * refuses when the required witness did not cosign. A restart of the log (the witness then
 * answers 409 with its size, and the log resends from there) keeps the cosignatures coming.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { generatePrivateKey } from '../../src/crypto/keys.js';
import {
  KEY_TYPE_COSIGNATURE,
  KEY_TYPE_ED25519,
  formatVerifierKey,
} from '../../src/log/note-keys.js';
import { startInProcess } from '../helpers/in-process-server.js';
import {
  CARDS_BIN,
  hermeticEnv,
  makeTempDir,
  removeTempDirs,
  START_LIMIT_MS,
} from '../helpers/server.js';
import { sandbox } from './harness.js';

after(removeTempDirs);

/** `cards witness serve` for `logKey`; with `json`, started with --json (one JSON start-up line). */
async function startWitness(logKey: string, dir: string, json = false) {
  const proc = spawn(
    process.execPath,
    [
      CARDS_BIN,
      'witness',
      'serve',
      '--log',
      logKey,
      '--dir',
      dir,
      '--port',
      '0',
      '--name',
      'test/witness',
      ...(json ? ['--json'] : []),
    ],
    { env: hermeticEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  proc.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  const started = json ? /\n/ : /^witness key: /m;
  const exited = new Promise<number | null>((resolve) => proc.on('exit', resolve));
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`witness did not start: ${out}`)),
        START_LIMIT_MS,
      );
      proc.stdout.on('data', () => {
        if (started.test(out)) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    const shown = json
      ? (JSON.parse(out) as { url: string; vkey: string })
      : {
          url: /^listening on (\S+)$/m.exec(out)?.[1] ?? '',
          vkey: /^witness key: (\S+)$/m.exec(out)?.[1] ?? '',
        };
    return { ...shown, out: () => out, stop: () => proc.kill('SIGTERM'), exited };
  } catch (err) {
    // A witness that did not start as expected is stopped, not left running.
    proc.kill('SIGKILL');
    throw err;
  }
}

/** The server's checkpoint once it carries the test witness's cosignature (up to 10 s). */
async function cosignedCheckpoint(url: string): Promise<string> {
  let text = '';
  for (let waited = 0; waited < 10_000; waited += 50) {
    text = await (await fetch(`${url}/log/checkpoint`)).text();
    if (/\n— test\/witness \S+\n$/.test(text)) return text;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail(`no cosignature in the checkpoint:\n${text}`);
}

test('a witnessed log: cosigned checkpoints, verify --witness, a restart resyncs (409)', async (t) => {
  const dir = makeTempDir('cards-witnessed-');
  const first = await startInProcess({ dir, args: ['--quiet'] });
  const logKey = /^log key: (\S+)$/m.exec(first.stdout())?.[1] ?? '';
  await first.stop();
  const witness = await startWitness(logKey, join(dir, 'witness'));
  t.after(witness.stop);
  const args = [
    '--quiet',
    '--log-interval',
    '50',
    '--witness',
    witness.url,
    '--witness-key',
    witness.vkey,
  ];
  let server = await startInProcess({ dir, args });
  t.after(() => server.dispose());
  const box = sandbox({ CARDS_URL: server.url, CARDS_DB: server.paths.store });
  t.after(() => box.cleanup());
  // Cosigned at start, before any card: the checkpoint the server opened with.
  assert.match(await cosignedCheckpoint(server.url), /^cards\.local\/\S+\n0\n/);

  const made = await box.cards(['create', '--identity', 'alice', '--new-key', '--json']);
  assert.equal(made.status, 0, made.stderr);
  const id = made.json<{ id: string }>().id;
  const ok = await box.cards([
    'verify',
    id,
    '--log-key',
    logKey,
    '--witness',
    witness.vkey,
    '--json',
  ]);
  assert.equal(ok.status, 0, ok.stderr + server.stderr());
  assert.deepEqual(ok.json<{ witnesses: string[] }>().witnesses, ['test/witness']);
  const checkpoint = await (await fetch(`${server.url}/log/checkpoint`)).text();
  assert.match(checkpoint, /\n— test\/witness \S+\n$/);

  const stranger = formatVerifierKey(
    'other/witness',
    KEY_TYPE_COSIGNATURE,
    generatePrivateKey().publicKey.raw,
  );
  const refused = await box.cards(['verify', id, '--log-key', logKey, '--witness', stranger]);
  assert.equal(refused.status, 5, refused.stderr);
  assert.match(refused.stderr, /0 of 1 required witness cosignatures/);
  // It names the witness missing and what makes a server ask it.
  assert.match(refused.stderr, /not cosigned by other\/witness/);
  assert.match(refused.stderr, /--witness URL --witness-key VKEY/);

  // Restart: the log no longer knows the witness's size; the 409 tells it, and it resends.
  await server.stop();
  server = await startInProcess({ dir, args });
  const again = await box.cards([
    'create',
    '--identity',
    'bob',
    '--new-key',
    '--json',
    '--url',
    server.url,
  ]);
  assert.equal(again.status, 0, again.stderr);
  const id2 = again.json<{ id: string }>().id;
  const ok2 = await box.cards([
    'verify',
    id2,
    '--log-key',
    logKey,
    '--witness',
    witness.vkey,
    '--url',
    server.url,
  ]);
  assert.equal(ok2.status, 0, ok2.stdout + ok2.stderr + server.stderr());
});

test('`cards witness serve --json`: one JSON start-up line, then it serves', async () => {
  const dir = makeTempDir('cards-witness-json-');
  const logKey = formatVerifierKey(
    'example.com/log',
    KEY_TYPE_ED25519,
    generatePrivateKey().publicKey.raw,
  );
  const witness = await startWitness(logKey, join(dir, 'witness'), true);
  try {
    const line = JSON.parse(witness.out()) as Record<string, unknown>;
    assert.deepEqual(Object.keys(line), ['url', 'vkey', 'state', 'logsSeen', 'logs']);
    assert.match(witness.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.match(witness.vkey, /^test\/witness\+[0-9a-f]{8}\+/);
    assert.equal(line.state, join(dir, 'witness'));
    assert.equal(line.logsSeen, 0);
    assert.deepEqual(line.logs, ['example.com/log']);
    // The C2SP add-checkpoint endpoint answers: a body that is no checkpoint is refused.
    const answer = await fetch(`${witness.url}/add-checkpoint`, { method: 'POST', body: 'x' });
    assert.equal(answer.status, 400);
  } finally {
    witness.stop();
  }
  assert.equal(await witness.exited, 0);
});

test("a witness's answer reaches the server's terminal with its controls written out", async (t) => {
  // A hostile witness: every submission refused with terminal controls in the body.
  const hostile = createServer((req, res) => {
    req.resume();
    res.writeHead(500, { 'content-type': 'text/plain' });
    res.end('\x1b]0;PWNED\x07\x1b[2J\r\x1b[Kforged line\u202e');
  });
  await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve));
  t.after(() => hostile.close());
  const { port } = hostile.address() as AddressInfo;
  const vkey = formatVerifierKey(
    'hostile/witness',
    KEY_TYPE_COSIGNATURE,
    generatePrivateKey().publicKey.raw,
  );
  const server = await startInProcess({
    args: ['--log-interval', '50', '--witness', `http://127.0.0.1:${port}`, '--witness-key', vkey],
  });
  t.after(() => server.dispose());
  const box = sandbox({ CARDS_URL: server.url, CARDS_DB: server.paths.store });
  t.after(() => box.cleanup());
  const made = await box.cards(['create', '--identity', 'alice', '--new-key']);
  assert.equal(made.status, 0, made.stderr);
  for (let waited = 0; !/no cosignature/.test(server.stderr()) && waited < 10_000; waited += 50)
    await new Promise((resolve) => setTimeout(resolve, 50));
  const warning =
    server
      .stderr()
      .split('\n')
      .find((line) => /no cosignature/.test(line)) ?? '';
  assert.match(
    warning,
    /HTTP 500 from .*: \\x1b\]0;PWNED\\x07\\x1b\[2J\\r\\x1b\[Kforged line\\u202e$/,
  );
  // eslint-disable-next-line no-control-regex
  assert.doesNotMatch(server.stderr(), /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
});
