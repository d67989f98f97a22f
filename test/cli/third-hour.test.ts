/**
 * What a developer's third hour with `cards` trips on, against a real server on port 0: the
 * state of a server started with --no-admin, the commands a hint suggests pasted into a POSIX
 * shell, the source `cards config` names for the address of the server holding the store, …
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { said, type Sandbox } from './harness.js';
import { serverInSandbox, type SandboxServer } from './server-sandbox.js';

interface State {
  url: string;
  reachable: boolean;
  version: string;
  cards: number;
  admin_auth: string;
  log: { origin: string; vkey: string | null; size: number } | null;
}

describe("a developer's third hour against cards serve", { concurrency: true }, () => {
  let server: SandboxServer;
  let box: Sandbox;
  before(async () => ({ server, box } = await serverInSandbox({ args: ['--no-admin'] })));
  after(() => Promise.all([server.dispose(), box.cleanup()]));

  test('cards status of a server without its admin API: what the public routes tell, exit 0', async () => {
    const made = await box.cards(['create', '--identity', 'ines', '--new-key']);
    assert.equal(made.status, 0, said(made));
    const json = await box.cards(['status', '--json']);
    assert.equal(json.status, 0, said(json));
    const state = json.json<State>();
    assert.equal(state.url, server.url);
    assert.equal(state.reachable, true);
    assert.equal(state.admin_auth, 'off');
    assert.equal(state.cards, 1);
    assert.equal(typeof state.version, 'string');
    assert.match(state.log?.origin ?? '', /^cards\.local\//);
    assert.equal(state.log?.vkey, null);
    const text = await box.cards(['status']);
    assert.equal(text.status, 0, said(text));
    assert.match(text.stdout, new RegExp(`^reachable +${server.url} `, 'm'));
    assert.match(text.stdout, /^admin API +off \(started with --no-admin\)/m);
    assert.match(text.stdout, /^log key +not known without the admin API/m);

    const logless = await serverInSandbox({ args: ['--no-admin', '--no-log'] });
    try {
      const bare = await logless.box.cards(['status', '--json']);
      assert.equal(bare.status, 0, said(bare));
      assert.equal(bare.json<State>().log, null);
    } finally {
      await Promise.all([logless.server.dispose(), logless.box.cleanup()]);
    }
  });

  test('the identity in a hint pastes into a POSIX shell as the identity, controls and all', async () => {
    for (const identity of [
      "bob's laptop",
      'évelyne 日本',
      'evil\x1b[31m',
      'tab\there',
      '50% off \\ \u202eabc',
      "-dash'\x07",
    ]) {
      const r = await box.cards(['rotate', '--identity', identity]);
      assert.equal(r.status, 3, said(r));
      const hinted = /`cards create --identity (.*) --new-key`/.exec(r.stderr)?.[1];
      assert.ok(hinted, r.stderr);
      // The word as sh reads it: printf prints it back, one byte for each.
      const sh = spawnSync('sh', ['-c', `printf %s ${hinted}`], { encoding: 'utf8' });
      assert.equal(sh.status, 0, sh.stderr);
      assert.equal(sh.stdout, identity, hinted);
    }
    const ending = await box.cards(['rotate', '--identity', 'line\n']);
    assert.match(ending.stderr, /'line\\n' \(written escaped: no shell word gives it back whole\)/);
  });

  test('cards config names the address file the URL came from when no layer sets one', async () => {
    const address = join(server.dir, 'cards.json.address');
    const json = await box.cards(['config', '--json'], { env: { CARDS_URL: undefined } });
    assert.equal(json.status, 0, said(json));
    const { url } = json.json<{
      settings: { url: { value: string; source: string; file?: string } };
    }>().settings;
    assert.deepEqual(url, { value: server.url, source: 'address', file: address });
    const text = await box.cards(['config'], { env: { CARDS_URL: undefined } });
    assert.match(
      text.stdout,
      new RegExp(`^ +url +${server.url} \\(address file ${address}\\)$`, 'm'),
    );
    const given = await box.cards(['config', '--json']);
    assert.equal(
      given.json<{ settings: { url: { source: string } } }>().settings.url.source,
      'env',
    );
  });
});
