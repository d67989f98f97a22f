/**
 * The shared durable writes (src/io/fs-durable.ts) on real files: the sync forms the CLI's
 * keystore and config file use, and the async replaceFile the JSON store uses. Modes are the
 * caller's, nothing is left behind, an existing file is never clobbered by an exclusive create.
 */
import assert from 'node:assert/strict';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import {
  createFileSync,
  removeLeftTempsSync,
  replaceFile,
  replaceFileSync,
} from '../../src/io/fs-durable.js';
import { storeKey } from '../../src/cli/keystore.js';
import { openConfig } from '../../src/cli/config-file.js';
import { generatePrivateKey } from '../../src/crypto/keys.js';

const dir = mkdtempSync(join(tmpdir(), 'cards-fs-durable-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const modeOf = (path: string): number => statSync(path).mode & 0o777;
const posix = process.platform !== 'win32';

test('replaceFileSync replaces the whole file with the mode asked for and leaves no temp file', () => {
  const path = join(dir, 'replace.txt');
  writeFileSync(path, 'old contents, longer than the new ones');
  replaceFileSync(path, 'new', 0o600);
  assert.equal(readFileSync(path, 'utf8'), 'new');
  if (posix) assert.equal(modeOf(path), 0o600);
  assert.deepEqual(
    readdirSync(dir).filter((n) => n.endsWith('.tmp')),
    [],
  );
});

test('replaceFileSync removes its temporary file when the rename fails', () => {
  // Renaming a file over a non-empty folder fails (EISDIR): the write must leave no debris.
  const folder = join(dir, 'busy');
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'inside'), '');
  assert.throws(() => replaceFileSync(folder, 'data', 0o600));
  assert.deepEqual(
    readdirSync(dir).filter((n) => n.startsWith('.busy')),
    [],
  );
});

test('createFileSync creates once with the mode asked for, then refuses with EEXIST', () => {
  const path = join(dir, 'create.pem');
  createFileSync(path, 'first', 0o600);
  assert.equal(readFileSync(path, 'utf8'), 'first');
  if (posix) assert.equal(modeOf(path), 0o600);
  assert.throws(
    () => createFileSync(path, 'second', 0o600),
    (err: NodeJS.ErrnoException) => err.code === 'EEXIST',
  );
  assert.equal(readFileSync(path, 'utf8'), 'first');
});

test('replaceFile streams chunks and reports the bytes written', async () => {
  const path = join(dir, 'stream.txt');
  const bytes = await replaceFile(path, ['a', 'éb', 'c'], 0o640);
  assert.equal(readFileSync(path, 'utf8'), 'aébc');
  assert.equal(bytes, 5);
  if (posix) assert.equal(modeOf(path), 0o640);
});

test('the keystore and the config file write 0600 files through the shared helper', () => {
  const home = join(dir, 'home');
  const key = storeKey(home, 'alice', generatePrivateKey(), false);
  if (posix) assert.equal(modeOf(key), 0o600);
  assert.throws(() => storeKey(home, 'alice', generatePrivateKey(), false), /exists already/);
  const replaced = generatePrivateKey();
  storeKey(home, 'alice', replaced, true);
  assert.equal(readFileSync(key, 'utf8'), replaced.toPem());
  const config = join(dir, 'conf', 'config.json');
  openConfig(config).write();
  if (posix) assert.equal(modeOf(config), 0o600);
  assert.deepEqual(JSON.parse(readFileSync(config, 'utf8')), { version: 1, profiles: {} });
  assert.deepEqual(
    readdirSync(join(dir, 'conf')).filter((n) => n.endsWith('.tmp')),
    [],
  );
});

test("removeLeftTempsSync removes a dead writer's temporary files only, and never throws", () => {
  const home = join(dir, 'left');
  mkdirSync(home);
  const path = join(home, 'state.json');
  // A pid above the kernel's largest (2^22) names no process.
  const dead = 4_194_305;
  const names = {
    dead: `.state.json.${dead}.tmp`,
    deadUnique: `.state.json.${dead}.0123abcd.tmp`,
    live: `.state.json.${process.ppid}.tmp`,
    other: `.state.json.bak.${dead}.tmp`,
    folder: `.state.json.${dead + 1}.tmp`,
  };
  for (const name of [names.dead, names.deadUnique, names.live, names.other])
    writeFileSync(join(home, name), 'x');
  // Not a file a writer left (a writer only makes files): kept, and no reason to fail the run.
  mkdirSync(join(home, names.folder));
  removeLeftTempsSync(path);
  assert.deepEqual(readdirSync(home).sort(), [names.folder, names.live, names.other].sort());
});
