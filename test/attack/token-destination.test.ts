/**
 * A store's own credentials go to the server holding it and to no other: the admin token file
 * beside the store and tokens minted with its app key. In a folder holding a store no server
 * holds now (its server stopped), every command given another server's URL, one on this
 * machine (loopback) too, sends that server neither; with the store's server running, the
 * commands reach it with them. And a refused token names where it came from: the flag, the
 * variable, the app key file, the local app key beside the store.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { generatePrivateKey } from '../../src/crypto/keys.js';
import { said, sandbox, type Sandbox } from '../cli/harness.js';
import {
  ADMIN_COMMANDS,
  CARD_COMMANDS,
  tokenSink,
  type TokenSink,
} from '../helpers/token-sinks.js';
import { startInProcess } from '../helpers/in-process-server.js';

/** Another server on this machine: what it was sent, and a 401 to every request. */
let theirs: TokenSink;
let theirUrl: string;
let received: string[];
let box: Sandbox;

before(async () => {
  theirs = await tokenSink();
  ({ url: theirUrl, received } = theirs);
  // A store made by a server that has stopped: its admin token and app key beside it.
  box = sandbox();
  const made = await startInProcess({ dir: box.dir, args: ['--quiet'] });
  await made.stop();
});
after(() => {
  theirs.close();
  box.cleanup();
});

const ADMIN = ADMIN_COMMANDS;
/** Every command that sends a token, to their server. */
const COMMANDS = [...ADMIN_COMMANDS, ...CARD_COMMANDS];

describe('credentials of a store no server holds', () => {
  test('another server on this machine is sent neither its admin token nor its app-key tokens', async () => {
    const token = readFileSync(join(box.dir, 'cards.json.admin-token'), 'utf8').trim();
    for (const command of COMMANDS) {
      received.length = 0;
      const ran = await box.cards([...command, '--url', theirUrl]);
      assert.notEqual(ran.status, 0, said(ran));
      if (ADMIN.includes(command))
        assert.notEqual(received.length, 0, `${command.join(' ')}: sent nothing`);
      assert.deepEqual(
        received.filter((line) => !line.endsWith(' ')),
        [],
        `${command.join(' ')}: a token was sent`,
      );
      assert.doesNotMatch(ran.stderr, new RegExp(token), command.join(' '));
    }
  });

  test('the refusal says why nothing was sent', async () => {
    const list = await box.cards(['list', '--url', theirUrl]);
    const file = join(box.dir, 'cards.json.admin-token');
    assert.ok(
      list.stderr.includes(
        `no admin token was sent: the token file ${file} goes only to the server holding its store, and none holds it now`,
      ),
      said(list),
    );
    const search = await box.cards(['search', 'alice', '--url', theirUrl]);
    assert.equal(search.status, 7, said(search));
    assert.match(search.stderr, /CREDENTIALS_MISSING/);
    assert.match(search.stderr, /mints tokens only for the server holding that store, and none/);
  });

  test('cards jwt still mints with the local app key (a printed token is sent nowhere)', async () => {
    const minted = await box.cards(['jwt', '--identity', 'alice']);
    assert.equal(minted.status, 0, said(minted));
    assert.match(minted.stdout, /^ey[\w-]+\.[\w-]+\.[\w-]+\n$/);
  });
});

describe('credentials of a store whose server runs', () => {
  test('they go to that server, and to no other', async () => {
    const server = await startInProcess({ dir: box.dir, args: ['--quiet'] });
    try {
      const listed = await box.cards(['list', '--json']);
      assert.equal(listed.status, 0, said(listed));
      const searched = await box.cards(['search', 'alice', '--json']);
      assert.equal(searched.status, 0, said(searched));
      received.length = 0;
      for (const command of COMMANDS) await box.cards([...command, '--url', theirUrl]);
      assert.deepEqual(
        received.filter((line) => !line.endsWith(' ')),
        [],
        'their server was sent a token',
      );
    } finally {
      await server.stop();
    }
  });

  test('a refused token names its source', async () => {
    const server = await startInProcess({ dir: box.dir, args: ['--quiet'] });
    const appKey = join(box.dir, 'cards.json.app-key.pem');
    const kept = readFileSync(appKey);
    try {
      // The server trusts the key it read at start; the file beside the store now holds another.
      writeFileSync(appKey, generatePrivateKey().toPem());
      const local = await box.cards(['search', 'alice']);
      assert.equal(local.status, 7, said(local));
      assert.ok(
        local.stderr.includes(
          `(the token sent was minted with the local app key ${appKey}, beside the store)`,
        ),
        said(local),
      );
    } finally {
      writeFileSync(appKey, kept);
      await server.stop();
    }
    const other = join(box.dir, 'other.pem');
    writeFileSync(other, generatePrivateKey().toPem(), { mode: 0o600 });
    for (const [args, env, from] of [
      [['--token', 'x.y.z'], {}, 'came from --token'],
      [[], { CARDS_TOKEN: 'x.y.z' }, 'came from CARDS_TOKEN'],
      [['--app-key', other], {}, `was minted with the app key ${other} (--app-key)`],
      [[], { CARDS_APP_KEY: other }, `was minted with the app key ${other} (CARDS_APP_KEY)`],
    ] as const) {
      const refused = await box.cards(['search', 'alice', '--url', theirUrl, ...args], { env });
      assert.equal(refused.status, 7, said(refused));
      assert.ok(refused.stderr.includes(`(the token sent ${from})`), said(refused));
    }
  });

  test('a token no header can carry is refused naming its source, never printed', async () => {
    const secret = 'cards_admin_0123456789abcdefghij';
    for (const [args, env, from] of [
      [['search', 'alice', '--token', 'x.y\n.z'], {}, '--token'],
      [['search', 'alice'], { CARDS_TOKEN: 'x.y\r\nz' }, 'CARDS_TOKEN'],
      [['list'], { CARDS_ADMIN_TOKEN: `${secret}\nx` }, 'CARDS_ADMIN_TOKEN'],
      [['list', '--admin-token', `${secret}\u0000`], {}, '--admin-token'],
    ] as const) {
      received.length = 0;
      const refused = await box.cards([...args, '--url', theirUrl], { env });
      assert.equal(refused.status, 2, said(refused));
      assert.match(refused.stderr, /USAGE/);
      assert.ok(
        refused.stderr.includes(`The token from ${from} holds a line break`),
        said(refused),
      );
      assert.ok(!refused.stderr.includes(secret), 'the token printed');
      assert.deepEqual(received, [], 'a request sent');
    }
    // Spaces and line breaks around a token are no part of it.
    received.length = 0;
    await box.cards(['list', '--url', theirUrl], { env: { CARDS_ADMIN_TOKEN: `${secret}\n` } });
    assert.deepEqual(received, [`GET /_cards/cards?limit=100 Bearer ${secret}`]);
  });
});
