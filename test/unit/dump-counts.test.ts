/**
 * The counts of a dump (src/cli/dump-counts.ts): Keyknox records (`keyknox1`, `keyknox2` lines)
 * apart from cards, however the bytes are cut into chunks.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dumpCounter } from '../../src/cli/dump-counts.js';
import { keyknoxNote } from '../../src/cli/text.js';

const DUMP =
  '{"keyknox1":{"app":"a","identity":"kim"}}\n' +
  '{"keyknox2":{"app":"a","owner":"kim"}}\n' +
  '{"id":"aa","content_snapshot":"e30=","signatures":[]}\n' +
  '{"id":"bb","content_snapshot":"e30=","signatures":[]}\n' +
  '{"id":"cc","note":"{\\"keyknox1\\":"}'; // a last line without its line break

test('cards and Keyknox records counted apart, in one chunk or cut at every byte', () => {
  for (const size of [DUMP.length, 1, 5, 12, 13]) {
    const counter = dumpCounter();
    const bytes = Buffer.from(DUMP);
    for (let at = 0; at < bytes.length; at += size) counter.add(bytes.subarray(at, at + size));
    assert.deepEqual(counter.counts(), { cards: 3, keyknox: 2 }, `chunks of ${size}`);
  }
  const empty = dumpCounter();
  empty.add('\n\n');
  assert.deepEqual(empty.counts(), { cards: 0, keyknox: 0 });
  assert.equal(keyknoxNote({ keyknox: 0 }), '');
  assert.equal(keyknoxNote({ keyknox: 2 }), ', 2 Keyknox records');
});
