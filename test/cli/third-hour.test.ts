/**
 * What a developer's third hour with `cards` trips on, against a real server on port 0: the
 * state of a server started with --no-admin, the commands a hint suggests pasted into a POSIX
 * shell, the source `cards config` names for the address of the server holding the store, and
 * that address once its server was killed (-9) and not yet reaped, and the setting an
 * unreachable service's hint names: the one its address came from.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CARDS_BIN, hermeticEnv, startServer } from '../helpers/server.js';
import { sandbox, said, type Sandbox } from './harness.js';
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

/** Field 3 of /proc/PID/stat: R, S, Z (exited, not reaped yet), …; undefined once reaped. */
const processState = (pid: number): string | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
};

test(
  'a server killed with -9 and not yet reaped holds no address: commands beside its store do not go to it',
  { skip: !existsSync('/proc/self/stat') && 'needs /proc' },
  async (t) => {
    const server = await startServer({ env: { CARDS_TEST_ENGINE: undefined } });
    t.after(() => server.dispose());
    if (server.store !== undefined) return t.skip('a file store only');
    const pid = server.proc.pid as number;
    server.proc.kill('SIGKILL');
    // This process does not return to its event loop until the check ran, so nothing reaps the
    // server: it stays a zombie, as under a parent that has not waited for it yet.
    const wait = new Int32Array(new SharedArrayBuffer(4));
    for (let i = 0; i < 500 && processState(pid) !== 'Z'; i++) Atomics.wait(wait, 0, 0, 10);
    assert.equal(processState(pid), 'Z');
    const config = spawnSync(process.execPath, [CARDS_BIN, 'config', '--json'], {
      cwd: server.dir,
      env: hermeticEnv({ HOME: server.dir, CARDS_HOME: `${server.dir}/.cards-home` }),
      encoding: 'utf8',
    });
    assert.equal(processState(pid), 'Z', 'still not reaped when the command ran');
    assert.equal(config.status, 0, config.stderr);
    const url = (JSON.parse(config.stdout) as { settings: { url: { source: string } } }).settings
      .url;
    assert.equal(url.source, 'default', JSON.stringify(url));
    await server.exited();
  },
);

test("an unreachable service's hint names the setting its address came from", async () => {
  const box = sandbox();
  try {
    // A port nothing listens on: one a server had, closed again.
    const gone = await serverInSandbox();
    const url = gone.server.url;
    await Promise.all([gone.server.dispose(), gone.box.cleanup()]);
    const ID = 'ab'.repeat(32);
    const hintOf = async (args: string[], env: Record<string, string> = {}): Promise<string> => {
      const r = await box.cards(['get', ID, '--token', 'x.y.z', ...args], { env });
      assert.equal(r.status, 6, said(r));
      return r.stderr.split('\n')[1] ?? '';
    };
    assert.match(await hintOf(['--url', url]), /is the service running\?.*check --url$/);
    assert.match(await hintOf([], { CARDS_URL: url }), /point CARDS_URL at yours$/);
    assert.match(
      await hintOf([], { CARDS_URL: 'http://no-such-host.invalid' }),
      /^ {2}the host name in CARDS_URL is not known here/,
    );
    const set = await box.cards(['config', 'set', 'url', url]);
    assert.equal(set.status, 0, said(set));
    assert.match(
      await hintOf([]),
      /point the profile's url at yours \(`cards config set url URL`\)$/,
    );
  } finally {
    box.cleanup();
  }
});
