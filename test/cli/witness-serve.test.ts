/**
 * `cards witness serve` refusing to start, as a process: a port in use is a usage error naming
 * the port (exit 2), as `cards serve` says it, not a raw errno.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { generatePrivateKey } from '../../src/crypto/keys.js';
import { KEY_TYPE_ED25519, formatVerifierKey } from '../../src/log/note-keys.js';
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
