/**
 * A file the CLI reads whole (a seed file, a card, an identity list) larger than a JavaScript
 * string holds is a usage error naming it (exit 2), on every command that reads one, `cards
 * serve --seed` included, where the runtime's RangeError ended each as an internal error with a
 * stack trace. The file is sparse: it takes no disk.
 */
import assert from 'node:assert/strict';
import { constants } from 'node:buffer';
import { closeSync, openSync, ftruncateSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { said, sandbox } from './harness.js';

const box = sandbox({ CARDS_URL: 'http://127.0.0.1:9', CARDS_TOKEN: 'a.b.c' });
after(() => box.cleanup());

test('an input larger than a string holds is USAGE naming it, never an internal error', async () => {
  const big = join(box.dir, 'big.json');
  const fd = openSync(big, 'w');
  ftruncateSync(fd, constants.MAX_STRING_LENGTH + 1);
  closeSync(fd);
  const commands = [
    ['seed', big],
    ['inspect', big],
    ['search', '--from', big],
    ['serve', '--port', '0', '--db', join(box.dir, 'cards.json'), '--seed', big],
  ];
  for (const args of commands) {
    const run = await box.cards(args);
    assert.equal(run.status, 2, `${args[0]}: ${said(run)}`);
    assert.match(run.stderr, /USAGE .*is \d+ bytes: more than the \d+ bytes an input read whole/);
    assert.doesNotMatch(run.stderr, /internal error/);
  }
});
