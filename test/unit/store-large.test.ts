/**
 * A store larger than the longest string V8 makes (0x1fffffe8 characters, about 512 MiB) still
 * opens: the store file is read as a stream of lines, never as one string.
 * The file is written here in the exact format the store writes (one card per line), with
 * made-up ids: opening it checks relations, not hashes (those are checked on first read). Each
 * snapshot is as long as a large legal card's (a 4096-byte public key, spec section 2.1), so the
 * 512 MiB take some 65,000 lines rather than ten times as many short ones.
 */
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { JsonStore } from '../../src/store/json/json-store.js';

const root = mkdtempSync(join(tmpdir(), 'cards-large-'));
after(() => rmSync(root, { recursive: true, force: true }));

const STRING_MAX = 0x1fffffe8;

test('a store file over 512 MiB opens, every card in order', { timeout: 120_000 }, async () => {
  const db = join(root, 'cards.json');
  const signature = 'A'.repeat(110);
  const snapshot = 'B'.repeat(8000);
  const fd = openSync(db, 'w');
  writeSync(fd, '{\n"format": "cards-store",\n"version": 1,\n"cards": [\n');
  let count = 0;
  let bytes = 0;
  const lines: string[] = [];
  while (bytes <= STRING_MAX + 4 * 1024 * 1024) {
    const id = count.toString(16).padStart(64, '0');
    const line = `{"id":"${id}","identity":"user-${count}@example.com","content_snapshot":"${snapshot}","signatures":[{"signer":"self","signature":"${signature}"},{"signer":"service","signature":"${signature}"}]}`;
    lines.push(count === 0 ? line : `,\n${line}`);
    bytes += line.length + 2;
    count++;
    if (lines.length === 20_000) writeSync(fd, lines.splice(0).join(''));
  }
  writeSync(fd, `${lines.join('')}\n]\n}\n`);
  closeSync(fd);
  assert.ok(statSync(db).size > STRING_MAX, 'larger than one string can be');

  const store = await JsonStore.open({ path: db });
  try {
    assert.equal(await store.count(), count);
    const last = (count - 1).toString(16).padStart(64, '0');
    const cards = store.cards();
    assert.equal(cards.at(-1)?.id, last);
    assert.equal(cards.at(-1)?.identity, `user-${count - 1}@example.com`);
  } finally {
    await store.close();
  }
});
