/**
 * Card data never reaches a terminal raw: a card whose identity and extra
 * snapshot hold ESC sequences (title change, screen clear), C1 controls, bidi overrides and a
 * forged line is created on a real `cards serve`, then read back with plain `cards get`,
 * `cards search` and `cards inspect`: the text views show the controls escaped; `--json` keeps
 * the data exact, with every control written as a JSON escape.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { said, type Sandbox, type CliResult } from './harness.js';
import { serverInSandbox, type SandboxServer } from './server-sandbox.js';

const ESC = '\u001b';
const IDENTITY = `mallory${ESC}]0;owned\u0007${ESC}[2J\u202e\u009b31m\r\nforged line\u2066`;
const EXTRA = `{"note":"${ESC}[1A${ESC}[2K\u0085\u200f\u061c\u007f"}`;
const UNSAFE =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

function assertClean(r: CliResult, what: string): void {
  assert.equal(r.stdout.match(UNSAFE), null, `${what}: raw control in stdout\n${said(r)}`);
  assert.equal(r.stderr.match(UNSAFE), null, `${what}: raw control in stderr\n${said(r)}`);
  assert.doesNotMatch(r.stdout, /^forged line/m, `${what}: a forged line`);
}

describe('text views escape what a card holds', () => {
  let server: SandboxServer;
  let box: Sandbox;
  before(async () => {
    ({ server, box } = await serverInSandbox());
    writeFileSync(join(box.dir, 'extra.bin'), EXTRA);
  });
  after(() => Promise.all([server.dispose(), box.cleanup()]));

  test('create, get, search, inspect and revoke print controls escaped; --json exact', async () => {
    const created = await box.cards([
      'create',
      '--identity',
      IDENTITY,
      '--new-key',
      '--extra',
      '@extra.bin',
    ]);
    assert.equal(created.status, 0, said(created));
    assertClean(created, 'create');
    assert.match(created.stdout, /mallory\\x1b\]0;owned\\x07\\x1b\[2J\\u202e\\x9b31m\\r\\nforged/);
    const id = /created (\S+)/.exec(created.stdout)?.[1] ?? '';
    assert.match(id, /^[0-9a-f]{64}$/, created.stdout);

    const json = await box.cards(['get', id, '--json']);
    assertClean(json, 'get --json');
    const got = json.json<{ snapshot: { identity: string; extras: Record<string, string> } }>();
    assert.equal(got.snapshot.identity, IDENTITY, 'exact under --json');
    assert.equal(got.snapshot.extras.self, EXTRA, 'exact under --json');
    assert.match(json.stdout, /\\u202e/, 'a bidi control written as a JSON escape');
    const found = await box.cards(['search', IDENTITY, '--json']);
    assertClean(found, 'search --json');
    assert.match(found.stdout, /\\u009b31m/, 'a C1 control written as a JSON escape');

    for (const args of [
      ['get', id],
      ['search', IDENTITY],
      ['inspect', id],
    ]) {
      const r = await box.cards(args);
      assert.equal(r.status, 0, said(r));
      assertClean(r, args[0] as string);
      assert.match(r.stdout, /\\x1b/, `${args[0]}: shows the escape`);
      assert.doesNotMatch(r.stdout, /\\\\x1b/, `${args[0]}: shows it once, not escaped again`);
    }

    // An error message quoting the identity: no key for it in this keystore.
    const noKey = await box.cards(['create', '--identity', `${IDENTITY}2`]);
    assert.notEqual(noKey.status, 0, said(noKey));
    assertClean(noKey, 'error');

    const revoked = await box.cards(['revoke', id, '--yes']);
    assert.equal(revoked.status, 0, said(revoked));
    assertClean(revoked, 'revoke');
  });
});
