/**
 * `cards keyknox --all` against a real `cards serve` holding Keyknox v2 entries whose page of
 * 100 (the CLI's default limit) passes LIMITS.adminPageBytes: each names 1,024 readers of 1,000
 * bytes, so the server sends four a page, and the CLI follows next_cursor to the end, every
 * entry once, in order, as text and as --json; without --all it says where the next page starts.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { LIMITS } from '../../src/core/limits.js';
import { startInProcess, type InProcessServer } from '../helpers/in-process-server.js';
import { said, sandbox, type Sandbox } from './harness.js';

const ENTRIES = 6;
const keyOf = (i: number): string => `k${i}`;

describe('cards keyknox over entries past a page of bytes', () => {
  let server: InProcessServer;
  let box: Sandbox;
  before(async () => {
    server = await startInProcess();
    box = sandbox({ CARDS_URL: server.url, CARDS_DB: join(server.dir, 'cards.json') });
    for (let i = 0; i < ENTRIES; i++) {
      const key = keyOf(i);
      const readers = Array.from({ length: LIMITS.keyknoxReadersMax }, (_, n) => {
        const head = `${key}-${n}-`;
        return { identity: head + 'r'.repeat(1000 - head.length), copy: 0 };
      });
      const stored = await server.running.engine.keyknox.v2Put(
        {
          address: { app: 'app', owner: 'alice', root: 'e3kit', path: 'backup', key },
          copies: [{ meta: new Uint8Array([1]), value: new Uint8Array([2]) }],
          readers,
          hash: `hash-${key}`,
          revision: 1,
        },
        0,
      );
      assert.ok(stored);
    }
  });
  after(async () => {
    await server.dispose();
    box.cleanup();
  });

  test('--all walks every entry once; one page says where the next starts', async () => {
    const keys = Array.from({ length: ENTRIES }, (_, i) => keyOf(i));
    const json = await box.cards(['keyknox', '--all', '--json']);
    assert.equal(json.status, 0, said(json));
    const listed = json.json<{
      keyknox: { key: string; readers: string[] }[];
      next_cursor: string | null;
    }>();
    assert.deepEqual(
      listed.keyknox.map((row) => row.key),
      keys,
    );
    assert.ok(listed.keyknox.every((row) => row.readers.length === LIMITS.keyknoxReadersMax));
    assert.equal(listed.next_cursor, null);

    const text = await box.cards(['keyknox', '--all']);
    assert.equal(text.status, 0, said(text));
    assert.deepEqual(
      text.stdout
        .trimEnd()
        .split('\n')
        .map((line) => / backup \/ (k\d+) /.exec(line)?.[1]),
      keys,
    );

    const one = await box.cards(['keyknox', '--json']);
    assert.equal(one.status, 0, said(one));
    const page = one.json<{ keyknox: { key: string }[]; next_cursor: string | null }>();
    assert.deepEqual(
      page.keyknox.map((row) => row.key),
      keys.slice(0, 4),
    );
    const rest = await box.cards([
      'keyknox',
      '--all',
      '--cursor',
      page.next_cursor ?? '',
      '--json',
    ]);
    assert.deepEqual(
      rest.json<{ keyknox: { key: string }[] }>().keyknox.map((row) => row.key),
      keys.slice(4),
    );
  });
});
