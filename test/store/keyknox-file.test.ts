/**
 * The JSON engine's Keyknox file (src/store/json/keyknox-file.ts): a torn tail (a crash
 * mid-write) is dropped and told, damage followed by a good line or a whole line that is not a
 * readable record refuses the store untouched,
 * a file of another format is refused, a store folded on open keeps one line per record, and a
 * file that is a snapshot already is read without being rewritten.
 */
import assert from 'node:assert/strict';
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { utf8 } from '../../src/core/encoding.js';
import { KeyknoxFile, KEYKNOX_HEADER } from '../../src/store/json/keyknox-file.js';
import { codeOf } from '../helpers/code-of.js';

const dir = mkdtempSync(join(tmpdir(), 'cards-keyknox-file-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fileName = (): string => join(dir, `k${++n}.keyknox`);
const record = (revision: number) => ({
  meta: utf8('m'),
  value: utf8(`v${revision}`),
  version: revision,
  hash: `h${revision}`,
  revision,
});
const a = { app: 'app', identity: 'alice' };

async function withTwoWrites(path: string): Promise<void> {
  const file = await KeyknoxFile.open(path, () => undefined);
  assert.equal(await file.v1Put(a, record(1), 0), true);
  assert.equal(await file.v1Put(a, record(2), 1), true);
  // Not closed: what a crash leaves (a snapshot, then one line per acknowledged write).
}

test('every acknowledged write is a line on disk before the answer', async () => {
  const path = fileName();
  await withTwoWrites(path);
  const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
  assert.equal(lines[0], KEYKNOX_HEADER);
  assert.equal(lines.length, 3);
  const reopened = await KeyknoxFile.open(path, () => undefined);
  assert.equal((await reopened.v1Get(a))?.hash, 'h2');
  await reopened.close();
  assert.equal(readFileSync(path, 'utf8').trimEnd().split('\n').length, 2, 'folded: one line');
});

test('a file that is a snapshot already is not rewritten on open; one with a replaced line is', async () => {
  const path = fileName();
  await withTwoWrites(path);
  const b = { app: 'app', identity: 'bob' };
  const folded = await KeyknoxFile.open(path, () => undefined);
  assert.equal(await folded.v1Put(b, record(1), 0), true);
  await folded.close();
  const snapshot = statSync(path);
  const reopened = await KeyknoxFile.open(path, () => undefined);
  assert.equal(statSync(path).ino, snapshot.ino, 'a snapshot: the same file, not a new one');
  assert.equal((await reopened.v1Get(a))?.hash, 'h2');
  assert.equal((await reopened.v1Get(b))?.hash, 'h1');
  assert.equal(await reopened.v1Put(a, record(3), 2), true, 'writes append to it');
  // Not closed: alice's line is replaced by a later one, so the next open folds the file.
  const replaced = statSync(path).ino;
  const again = await KeyknoxFile.open(path, () => undefined);
  assert.notEqual(statSync(path).ino, replaced, 'folded into a new file');
  assert.equal(readFileSync(path, 'utf8').trimEnd().split('\n').length, 3, 'one line per record');
  assert.equal((await again.v1Get(a))?.hash, 'h3');
  await again.close();
});

test('a torn last line is dropped and told; the writes before it stay', async () => {
  const path = fileName();
  await withTwoWrites(path);
  appendFileSync(path, '{"keyknox1":{"app":"app","identity":"alice","me');
  const warnings: string[] = [];
  const reopened = await KeyknoxFile.open(path, (w) => warnings.push(w));
  assert.equal((await reopened.v1Get(a))?.hash, 'h2');
  assert.match(warnings.join('\n'), /torn write.*1 line/);
  assert.equal(await reopened.v1Put(a, record(3), 2), true, 'writes go on after the cut');
  await reopened.close();
  const again = await KeyknoxFile.open(path, () => undefined);
  assert.equal((await again.v1Get(a))?.hash, 'h3');
  await again.close();
});

test('damage followed by a good line is STORE_CORRUPT, the file untouched', async () => {
  const path = fileName();
  await withTwoWrites(path);
  const lines = readFileSync(path, 'utf8').split('\n');
  lines[1] = '{"keyknox1": not json';
  writeFileSync(path, lines.join('\n'));
  const before = readFileSync(path, 'utf8');
  assert.equal(await codeOf(() => KeyknoxFile.open(path, () => undefined)), 'STORE_CORRUPT');
  assert.equal(readFileSync(path, 'utf8'), before);
});

test('a whole last line that is not a record this version reads is STORE_CORRUPT, never a torn write', async () => {
  // An acknowledged write whose record the reader refuses (a revision past 2^53 - 1, as an
  // imported revision of 2^53 - 1 and one push made it): dropping it as torn lost that push.
  const path = fileName();
  await withTwoWrites(path);
  const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
  const last = JSON.parse(lines.at(-1)!) as { keyknox1: Record<string, unknown> };
  last.keyknox1.revision = 2 ** 53;
  appendFileSync(path, `${JSON.stringify(last)}\n`);
  const before = readFileSync(path, 'utf8');
  const warnings: string[] = [];
  assert.equal(
    await codeOf(() => KeyknoxFile.open(path, (w) => warnings.push(w))),
    'STORE_CORRUPT',
  );
  assert.equal(readFileSync(path, 'utf8'), before, 'the file untouched');
  assert.deepEqual(warnings, []);
});

test('a reset the file refuses leaves the records held as the file keeps them', async () => {
  const path = fileName();
  await withTwoWrites(path);
  const file = await KeyknoxFile.open(path, () => undefined);
  // The snapshot cannot take the file's name: a folder holds it, the file set aside meanwhile
  // (as a full disk refuses the write, without needing one).
  const aside = `${path}.aside`;
  renameSync(path, aside);
  mkdirSync(join(path, 'blocker'), { recursive: true });
  try {
    assert.equal(await codeOf(() => file.reset()), 'STORE_UNAVAILABLE');
    assert.equal((await file.v1Get(a))?.hash, 'h2', 'still answered, as the file keeps it');
  } finally {
    rmSync(path, { recursive: true });
    renameSync(aside, path);
  }
  await file.reset();
  assert.equal(await file.v1Get(a), undefined);
  await file.close();
  const reopened = await KeyknoxFile.open(path, () => undefined);
  assert.equal(await reopened.v1Get(a), undefined);
  await reopened.close();
});

test('a file of another format is refused untouched', async () => {
  const path = fileName();
  writeFileSync(path, '{"format":"cards-keyknox","version":99}\n');
  assert.equal(await codeOf(() => KeyknoxFile.open(path, () => undefined)), 'STORE_CORRUPT');
  assert.equal(readFileSync(path, 'utf8'), '{"format":"cards-keyknox","version":99}\n');
});

test('a read of an address with a write queued answers only once the write is on disk', async () => {
  const path = fileName();
  const file = await KeyknoxFile.open(path, () => undefined);
  const write = file.v1Put(a, record(1), 0);
  const read = file.v1Get(a);
  assert.equal(await file.v1Put(a, record(1), 0), false, 'the queued write decides the revision');
  assert.equal((await read)?.hash, 'h1');
  assert.equal(await write, true);
  await file.close();
});
