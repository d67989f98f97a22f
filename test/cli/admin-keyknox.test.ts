/**
 * `cards keyknox` against a real `cards serve`: Keyknox entries pushed through e3kit's routes
 * are listed a page at a time (--limit, --cursor, --all), with --json exact; a key and a reader
 * holding ESC sequences, bidi overrides and a forged line reach the terminal escaped; a bad
 * --limit is a usage error before any request.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { said, type CliResult, type Sandbox } from './harness.js';
import { serverInSandbox, type SandboxServer } from './server-sandbox.js';

const ESC = '\u001b';
const KEY = `laptop${ESC}]0;owned\u0007${ESC}[2J\u202e\r\nforged line`;
const READER = `bob${ESC}[31m\u2066`;
const UNSAFE =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const b64 = (text: string): string => Buffer.from(text).toString('base64');

type Listed = {
  keyknox: { api: string; owner: string; key: string | null; readers: string[]; size: number }[];
  next_cursor: string | null;
};

describe('cards keyknox against cards serve', () => {
  let server: SandboxServer;
  let box: Sandbox;
  before(async () => {
    ({ server, box } = await serverInSandbox());
    const push = async (path: string, method: string, body: unknown) => {
      const response = await fetch(`${server.url}${path}`, {
        method,
        headers: {
          authorization: `Service ${await server.token('alice')}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify(body),
      });
      assert.equal(response.status, 200, await response.text());
    };
    await push('/keyknox/v1', 'PUT', { meta: b64('meta'), value: b64('private key') });
    for (const key of [KEY, 'phone'])
      await push('/keyknox/v2/push', 'POST', {
        root: 'e3kit',
        path: 'backup',
        key,
        identities: [READER],
        meta: b64('m'),
        value: b64('v'),
      });
  });
  after(() => Promise.all([server.dispose(), box.cleanup()]));

  const clean = (r: CliResult, what: string): void => {
    assert.equal(r.stdout.match(UNSAFE), null, `${what}: raw control in stdout\n${said(r)}`);
    assert.doesNotMatch(r.stdout, /^forged line/m, `${what}: a forged line`);
  };

  test('every entry, metadata only, text escaped and --json exact', async () => {
    const text = await box.cards(['keyknox']);
    assert.equal(text.status, 0, said(text));
    clean(text, 'keyknox');
    const lines = text.stdout.trimEnd().split('\n');
    assert.equal(lines.length, 3, text.stdout);
    assert.match(
      lines[0]!,
      /^v1 {2}app \(none\) {2}alice {2}15 B {2}1\.0 {2}updated \d{4}-\d\d-\d\dT/,
    );
    assert.match(
      lines[1]!,
      /^v2 .* alice {2}e3kit \/ backup \/ laptop\\x1b\]0;owned\\x07\\x1b\[2J\\u202e\\r\\nforged line {2}2 B {2}updated \S+ {2}readers bob\\x1b\[31m\\u2066$/,
    );
    assert.match(lines[2]!, /e3kit \/ backup \/ phone {2}2 B/);
    assert.doesNotMatch(text.stdout, /private key|cHJpdmF0ZSBrZXk/, 'never the content');

    const json = await box.cards(['keyknox', '--json']);
    assert.equal(json.status, 0, said(json));
    const listed = json.json<Listed>();
    assert.deepEqual(
      listed.keyknox.map((k) => [k.api, k.owner, k.key, k.readers, k.size]),
      [
        ['v1', 'alice', null, [], 15],
        ['v2', 'alice', KEY, [READER], 2],
        ['v2', 'alice', 'phone', [READER], 2],
      ],
    );
    assert.equal(listed.next_cursor, null);
  });

  test('--limit pages, --cursor goes on, --all walks to the end; a bad --limit is refused', async () => {
    const first = await box.cards(['keyknox', '--limit', '2', '--json']);
    assert.equal(first.status, 0, said(first));
    const page = first.json<Listed>();
    assert.equal(page.keyknox.length, 2);
    assert.ok(page.next_cursor);
    const text = await box.cards(['keyknox', '--limit', '2']);
    assert.match(text.stdout, new RegExp(`more: --cursor ${page.next_cursor} \\(or --all\\)`));
    const rest = await box.cards(['keyknox', '--cursor', page.next_cursor, '--json']);
    assert.deepEqual(
      rest.json<Listed>().keyknox.map((k) => k.key),
      ['phone'],
    );
    const all = await box.cards(['keyknox', '--limit', '1', '--all', '--json']);
    assert.deepEqual(
      all.json<Listed>().keyknox.map((k) => k.key),
      [null, KEY, 'phone'],
    );
    const refused = await box.cards(['keyknox', '--limit', '0']);
    assert.equal(refused.status, 2, said(refused));
    assert.match(refused.stderr, /--limit must be an integer from 1 to 1000, got "0"/);
    const bad = await box.cards(['keyknox', '--cursor', 'nope!']);
    assert.notEqual(bad.status, 0, said(bad));
    assert.match(bad.stderr, /cursor must be the next_cursor of a previous page/);
  });
});
