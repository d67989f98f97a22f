/**
 * The credentials a config profile holds (adminToken, appKey, appConfig) go to the profile's own
 * server alone, the origin (scheme, host, port; RFC 6454 section 4) of its url, as git's and
 * gh's stored credentials are per host: every command given another URL by --url or CARDS_URL
 * sends that URL neither the profile's admin token nor a token minted with its app key or app
 * config, and its refusal says why and how to send one anyway. A credential given by flag or
 * variable goes where the user points it.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
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
/** The profile's server: nothing listens there, no request may go there in these tests. */
const PROFILE_URL = 'http://127.0.0.1:9';
const ADMIN_TOKEN = 'cards_admin_profile0123456789abcdefghijklmnop';
let appKey: string;
let appConfig: string;
const config = (): string => join(box.dir, 'config.json');

/** The config file holding one profile, the default, with `settings`. */
function profile(settings: Record<string, string>): void {
  writeFileSync(config(), JSON.stringify({ version: 1, default: 'p', profiles: { p: settings } }), {
    mode: 0o600,
  });
}

before(async () => {
  theirs = await tokenSink();
  ({ url: theirUrl, received } = theirs);
  box = sandbox();
  box.env.CARDS_CONFIG = join(box.dir, 'config.json');
  appKey = join(box.dir, 'app.pem');
  writeFileSync(appKey, generatePrivateKey().toPem(), { mode: 0o600 });
  appConfig = join(box.dir, 'app.json');
  const APP_KEY = generatePrivateKey().toBase64();
  writeFileSync(appConfig, JSON.stringify({ APP_ID: 'a1', APP_KEY_ID: 'k1', APP_KEY }), {
    mode: 0o600,
  });
});
after(() => {
  theirs.close();
  box.cleanup();
});

const ADMIN = ADMIN_COMMANDS;
const CARD = CARD_COMMANDS;

/** The tokens `received` holds. */
const sentTokens = (): string[] => received.filter((line) => !line.endsWith(' '));

describe("a profile's credentials", () => {
  test('go to no URL but the profile’s, given by --url or CARDS_URL', async () => {
    // A profile without a url leads to the default URL: its credentials are that server's.
    for (const credential of [
      { url: PROFILE_URL, appKey },
      { url: PROFILE_URL, appConfig },
      { appKey },
    ] as Record<string, string>[]) {
      profile({ adminToken: ADMIN_TOKEN, ...credential });
      for (const command of [...ADMIN, ...CARD])
        for (const [args, env] of [
          [['--url', theirUrl], {}],
          [[], { CARDS_URL: theirUrl }],
        ] as const) {
          received.length = 0;
          const ran = await box.cards([...command, ...args], { env });
          const what = `${command.join(' ')} ${JSON.stringify([args, env, credential])}`;
          assert.notEqual(ran.status, 0, `${what}: ${said(ran)}`);
          if (ADMIN.includes(command)) assert.notEqual(received.length, 0, `${what}: sent nothing`);
          assert.deepEqual(sentTokens(), [], `${what}: a token was sent`);
          assert.ok(!ran.stderr.includes(ADMIN_TOKEN), `${what}: the admin token printed`);
        }
    }
  });

  test('withheld, the refusal says why and how to send one anyway', async () => {
    profile({ url: PROFILE_URL, adminToken: ADMIN_TOKEN, appKey });
    const list = await box.cards(['list', '--url', theirUrl]);
    assert.ok(
      list.stderr.includes(
        `no admin token was sent: the profile's adminToken goes only to the profile's URL, ${PROFILE_URL}, not to ${theirUrl} (--url); to send it there anyway, pass --admin-token or set CARDS_ADMIN_TOKEN`,
      ),
      said(list),
    );
    const search = await box.cards(['search', 'alice'], { env: { CARDS_URL: theirUrl } });
    assert.equal(search.status, 7, said(search));
    assert.match(search.stderr, /CREDENTIALS_MISSING/);
    assert.ok(
      search.stderr.includes(
        `the profile's appKey goes only to the profile's URL, ${PROFILE_URL}, not to ${theirUrl} (CARDS_URL)`,
      ),
      said(search),
    );
    assert.ok(search.stderr.includes(`pass --app-key ${appKey}`), said(search));
  });

  test('go to the profile’s own URL, however it is spelled', async () => {
    profile({ url: `${theirUrl}/`, adminToken: ADMIN_TOKEN, appKey });
    for (const args of [[], ['--url', theirUrl.replace('http', 'HTTP')]]) {
      received.length = 0;
      await box.cards(['list', ...args]);
      assert.deepEqual(received, [`GET /_cards/cards?limit=100 Bearer ${ADMIN_TOKEN}`]);
      received.length = 0;
      await box.cards(['search', 'alice', ...args]);
      assert.match(sentTokens().join('\n'), /^POST \/card\/v5\/actions\/search Service ey/);
    }
  });

  test('given by flag or variable, go wherever the user points them', async () => {
    profile({ url: PROFILE_URL, adminToken: ADMIN_TOKEN, appKey });
    for (const [command, args, env] of [
      [['list'], ['--admin-token', ADMIN_TOKEN], {}],
      [['list'], [], { CARDS_ADMIN_TOKEN: ADMIN_TOKEN }],
      [['search', 'alice'], ['--app-key', appKey], {}],
      [['search', 'alice'], [], { CARDS_APP_KEY: appKey }],
      [['search', 'alice'], ['--app-config', appConfig], {}],
    ] as const) {
      received.length = 0;
      await box.cards([...command, '--url', theirUrl, ...args], { env });
      assert.equal(sentTokens().length, 1, `${command[0]} ${JSON.stringify([args, env])}`);
    }
  });

  test('withheld, still mint a printed token and show in cards config', async () => {
    profile({ url: PROFILE_URL, appKey });
    const printed = await box.cards(['jwt', '--identity', 'alice', '--url', theirUrl]);
    assert.equal(printed.status, 0, said(printed));
    assert.match(printed.stdout, /^ey/);
    const shown = await box.cards(['config', '--url', theirUrl]);
    assert.equal(shown.status, 0, said(shown));
    assert.ok(
      shown.stdout.includes(`app-key ${appKey} (withheld: the profile's appKey`),
      said(shown),
    );
  });

  test('withheld from a store’s own server, leave it the store’s credentials', async () => {
    // The store's server asks for its admin token on loopback too: only the token file opens it.
    const dir = join(box.dir, 'store');
    const server = await startInProcess({ dir, args: ['--quiet', '--require-admin-token'] });
    try {
      profile({ url: PROFILE_URL, adminToken: ADMIN_TOKEN, appKey });
      const db = ['--db', join(dir, 'cards.json'), '--url', server.url];
      const listed = await box.cards(['list', ...db]);
      assert.equal(listed.status, 0, said(listed));
      const searched = await box.cards(['search', 'alice', ...db]);
      assert.equal(searched.status, 0, said(searched));
    } finally {
      await server.stop();
    }
  });
});
