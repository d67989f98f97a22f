/**
 * `cards import` watches its dump for the first card line (src/cli/commands/transfer/
 * moved-cards.ts): Keyknox lines before it are skipped, whatever the chunks, and a line is
 * found only once it has ended.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { watchFirstCard } from '../../src/cli/commands/transfer/moved-cards.js';

const keyknox = `{"keyknox2":{"owner":"alice","value":"${'QUFB'.repeat(5000)}"}}`;
const card = '{"id":"ab","identity":"ålice","content_snapshot":"e30=","signatures":[]}';
const dump = `${keyknox}\n\n${card}\n{"id":"cd"}\n`;

for (const size of [1, 7, 4096, dump.length]) {
  test(`the first card line is found past a Keyknox line, in chunks of ${size} bytes`, () => {
    const stream = new PassThrough();
    const first = watchFirstCard(stream);
    const bytes = Buffer.from(dump);
    for (let at = 0; at < bytes.length; at += size) {
      stream.write(bytes.subarray(at, at + size));
      // Not before the card's line has ended.
      if (at + size < bytes.indexOf('\n', bytes.indexOf('{"id"'))) assert.equal(first(), undefined);
    }
    stream.end();
    assert.equal(first(), card);
  });
}

test('a dump without a card line gives none', () => {
  const stream = new PassThrough();
  const first = watchFirstCard(stream);
  stream.end(`${keyknox}\n{"id":"unterminated`);
  assert.equal(first(), undefined);
});
