/**
 * `cards serve --db FILE` where FILE cannot be the store: a folder, under a file where a folder
 * should be, or in a folder this user may not write (as `nobody` when the tests run as root,
 * who may write anywhere). Each exits 1 with the file-system refusal and a next step for that
 * case, naming the path and --db, never the general "check the path and its permissions" line.
 * A real `cards serve` process each time.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { BIN } from './harness.js';

// World-readable, so `nobody` can reach the folders inside.
const dir = mkdtempSync(join(tmpdir(), 'cards-serve-db-'));
chmodSync(dir, 0o755);
after(() => rmSync(dir, { recursive: true, force: true }));

const GENERAL = /check the path and its permissions/;

function serve(db: string, asNobody = false): { status: number | null; stderr: string } {
  const args = [BIN, 'serve', '--port', '0', '--quiet', '--db', db];
  const env = { PATH: process.env.PATH ?? '', HOME: dir, CARDS_HOME: join(dir, 'home') };
  const r = asNobody
    ? spawnSync('runuser', ['-u', 'nobody', '--', process.execPath, ...args], { cwd: dir, env })
    : spawnSync(process.execPath, args, { cwd: dir, env });
  return { status: r.status, stderr: r.stderr.toString() };
}

test('--db naming a folder: the hint says to name a file in it', () => {
  const folder = join(dir, 'a-folder');
  mkdirSync(folder);
  const r = serve(folder);
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /^error EISDIR: /, r.stderr);
  assert.ok(
    r.stderr.includes(
      `--db ${folder} is a folder: name the store's file, e.g. --db ${join(folder, 'cards.json')}`,
    ),
    r.stderr,
  );
  assert.doesNotMatch(r.stderr, GENERAL);
});

test('--db under a file where a folder should be: the hint names that file', () => {
  const file = join(dir, 'a-file');
  writeFileSync(file, '');
  const r = serve(join(file, 'cards.json'));
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /^error (ENOTDIR|EEXIST): /, r.stderr);
  assert.ok(
    r.stderr.includes(
      `${file} is a file, not a folder: --db ${join(file, 'cards.json')} needs a folder there`,
    ),
    r.stderr,
  );
  assert.doesNotMatch(r.stderr, GENERAL);
});

test('--db in a folder this user may not write, or may not make: the hint names the folder and the user', () => {
  const root = process.getuid?.() === 0;
  const locked = join(dir, 'locked');
  mkdirSync(locked);
  chmodSync(locked, 0o555);
  for (const [db, folder] of [
    [join(locked, 'cards.json'), locked],
    [join(locked, 'missing', 'cards.json'), locked],
  ] as const) {
    const r = serve(db, root);
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /^error EACCES: /, r.stderr);
    assert.match(r.stderr, new RegExp(`user \\w+ may not write in ${folder}: `), r.stderr);
    assert.ok(
      r.stderr.includes("the store's file, journal, lock, keys and log are made beside --db"),
      r.stderr,
    );
    assert.doesNotMatch(r.stderr, GENERAL);
  }
});

test('a file of the store this user may not open, in a folder it may write: the hint names that file', () => {
  const root = process.getuid?.() === 0;
  const folder = join(dir, 'open');
  mkdirSync(folder);
  chmodSync(folder, 0o777);
  const key = join(folder, 'cards.json.service-key.pem');
  writeFileSync(key, '');
  chmodSync(key, 0o000);
  const r = serve(join(folder, 'cards.json'), root);
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /^error EACCES: /, r.stderr);
  assert.match(r.stderr, new RegExp(`user \\w+ may not open ${key}: `), r.stderr);
  assert.doesNotMatch(r.stderr, /may not write in /, r.stderr);
  assert.doesNotMatch(r.stderr, GENERAL);
});
