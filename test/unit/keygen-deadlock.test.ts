/**
 * Key generation never hangs. With `generateKeyPairSync('ed25519')`, node v20.20 deadlocked in
 * some CI runs (a `cards seed`, a test file): a garbage collection during the JWK export of the
 * new key, which holds the key's mutex, destroyed the finished key-generation job, whose
 * destructor takes that same mutex (gdb: ExportJWKEdKey → … → GC → ~KeyGenJob →
 * pthread_mutex_lock, owner the main thread itself). A young generation of 1 MiB makes such a
 * collection frequent: 30,000 keys made the old way hung in five runs of six.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { awakeTimer } from '../helpers/awake.js';

const KEYS = new URL('../../src/crypto/keys.js', import.meta.url).href;
const COUNT = 30_000;
const LIMIT_MS = 90_000;

test(`${COUNT.toLocaleString('en-US')} keys in a row, garbage collected often: none hangs`, async () => {
  const source = `import { generatePrivateKey } from ${JSON.stringify(KEYS)};
const seen = new Set();
for (let i = 0; i < ${COUNT}; i++) seen.add(generatePrivateKey().publicKey.toBase64());
console.log(seen.size);`;
  const child = spawn(
    process.execPath,
    ['--max-semi-space-size=1', '--input-type=module', '-e', source],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  let hung = false;
  const limit = awakeTimer(LIMIT_MS, () => {
    hung = true;
    child.kill('SIGKILL');
  });
  const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
  limit.clear();
  assert.equal(hung, false, `key generation still running after ${LIMIT_MS / 1000} s: hung`);
  assert.equal(status, 0);
  assert.equal(Number(out.trim()), COUNT, 'every key is a new one');
});
