/**
 * What a person sees on a terminal: Ctrl-C at a question exits
 * 130 with one quiet line, "No" exits 1 and changes nothing, interactive `cards init` asks what
 * a newcomer can answer and stores absolute paths, seed's progress bar shows a rate and an ETA.
 * Every command runs as `node bin/cards.js` on a real pseudo-terminal (pty.ts).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { keyFile } from '../../src/cli/keystore.js';
import { said, type Sandbox } from './harness.js';
import { serverInSandbox, type SandboxServer } from './server-sandbox.js';
import { onTerminal } from './pty.js';

const CTRL_C = '\x03';
const QUIET = /^Cancelled; nothing was changed\.$/m;

describe('on a terminal', { concurrency: true }, () => {
  let server: SandboxServer;
  let box: Sandbox;
  before(async () => ({ server, box } = await serverInSandbox()));
  after(() => Promise.all([server.dispose(), box.cleanup()]));
  const terminal = (args: readonly string[], env: Record<string, string> = {}) =>
    onTerminal(args, { cwd: box.dir, env: { ...box.env, ...env } });
  const stateOf = async (id: string): Promise<string> =>
    (await box.cards(['get', id, '--json'])).json<{ state: string }>().state;

  test('Ctrl-C at revoke, init and create questions: exit 130, one quiet line, nothing changed', async () => {
    const made = await box.cards(['create', '--identity', 'dora', '--new-key', '--json']);
    assert.equal(made.status, 0, said(made));
    const id = made.json<{ id: string }>().id;

    const revoke = terminal(['revoke', id]);
    await revoke.waitFor(/Revoke card/);
    revoke.type(CTRL_C);
    const revoked = await revoke.exited;
    assert.equal(revoked.status, 130, revoked.screen);
    assert.match(revoked.screen, QUIET);
    assert.doesNotMatch(revoked.screen, /internal error|ExitPromptError|at /);
    assert.equal(await stateOf(id), 'active');

    const config = join(box.dir, 'ctrl-c.json');
    const init = terminal(['init'], { CARDS_CONFIG: config });
    await init.waitFor(/Profile name/);
    init.type(CTRL_C);
    const inited = await init.exited;
    assert.equal(inited.status, 130, inited.screen);
    assert.match(inited.screen, QUIET);
    assert.equal(existsSync(config), false);

    const create = terminal(['create', '--identity', 'eve']);
    await create.waitFor(/Make one now\?/);
    create.type(CTRL_C);
    const created = await create.exited;
    assert.equal(created.status, 130, created.screen);
    assert.match(created.screen, QUIET);
    assert.equal(existsSync(keyFile(box.home, 'eve')), false);
  });

  test('"No" at revoke and create: exit 1, "nothing was changed", no error', async () => {
    const made = await box.cards(['create', '--identity', 'fay', '--new-key', '--json']);
    const id = made.json<{ id: string }>().id;
    const revoke = terminal(['revoke', id]);
    await revoke.waitFor(/Revoke card/);
    revoke.type('n\r');
    const declined = await revoke.exited;
    assert.equal(declined.status, 1, declined.screen);
    assert.match(declined.screen, /^Not confirmed; nothing was changed\.$/m);
    assert.doesNotMatch(declined.screen, /error/);
    assert.equal(await stateOf(id), 'active');

    const create = terminal(['create', '--identity', 'gus']);
    await create.waitFor(/Make one now\?/);
    create.type('n\r');
    const no = await create.exited;
    assert.equal(no.status, 1, no.screen);
    assert.match(no.screen, /nothing was changed/);
    assert.equal(existsSync(keyFile(box.home, 'gus')), false);
  });

  test('init asks for the store of a local server in plain words and stores absolute paths', async () => {
    const config = join(box.dir, 'init.json');
    const init = terminal(['init'], { CARDS_CONFIG: config });
    await init.waitFor(/Profile name/);
    init.type('\r'); // default
    await init.waitFor(/Service URL/);
    init.type('\r'); // the local default
    await init.waitFor(/Your identity/);
    init.type('hal\r');
    await init.waitFor(/Which kind of service is it\?/);
    assert.match(init.screen(), /`cards serve`, or a service that follows the Cards spec/);
    assert.doesNotMatch(init.screen(), /[Ww]ire words/);
    init.type('\r'); // service
    await init.waitFor(/Store file of your local `cards serve`/);
    init.type('data/cards.json\r'); // relative: stored absolute
    const done = await init.exited;
    assert.equal(done.status, 0, done.screen);
    const file = JSON.parse(readFileSync(config, 'utf8')) as {
      profiles: Record<string, Record<string, string>>;
    };
    assert.deepEqual(file.profiles.default, {
      url: 'http://127.0.0.1:8080',
      identity: 'hal',
      compat: 'service',
      db: join(box.dir, 'data', 'cards.json'),
    });
  });

  test('seed draws a progress bar with a rate and an ETA on a terminal', async () => {
    const seedFile = join(box.dir, 'progress-seed.json');
    writeFileSync(
      seedFile,
      JSON.stringify({ version: 1, identities: [{ identity: 'p-${n}@x.org', count: 300 }] }),
    );
    const seed = terminal(['seed', seedFile]);
    const done = await seed.exited;
    assert.equal(done.status, 0, done.screen);
    assert.match(done.screen, /\] 300\/300 requests [\d.]+\/s ETA 0s/);
  });
});
