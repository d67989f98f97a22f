/**
 * The admin commands against a real `cards serve`: list, history, requests, reset
 * --yes, export --out and import (a round trip), with --json; the admin token read from the
 * token file beside --db, and a wrong one from the environment refused (exit 7).
 *
 * With CARDS_TEST_ENGINE=postgres (admin-postgres.test.ts) the server serves from a fresh
 * PostgreSQL database: its admin token and app key are kept there, so the commands get the
 * token from the banner (CARDS_ADMIN_TOKEN) and the cards are made with tokens signed by the
 * database's app key.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { postCard } from '../helpers/post-card.js';
import { makeCard } from '../http/card-kit.js';
import { said, type Sandbox } from './harness.js';
import { serverInSandbox, type SandboxServer } from './server-sandbox.js';

const onPostgres = process.env.CARDS_TEST_ENGINE === 'postgres';
const bannerToken = (server: SandboxServer): string =>
  /^admin token: (\S+)$/m.exec(server.stdout())?.[1] ?? '';

describe(`admin commands against cards serve${onPostgres ? ' on PostgreSQL' : ''}`, () => {
  let server: SandboxServer;
  let box: Sandbox;
  before(async () => {
    ({ server, box } = await serverInSandbox({
      env: (served): Record<string, string> =>
        onPostgres
          ? { CARDS_URL: served.url, CARDS_ADMIN_TOKEN: bannerToken(served) }
          : { CARDS_URL: served.url, CARDS_DB: served.paths.store },
    }));
    // On PostgreSQL the app key is in the database: a token per identity, as a client sends.
    const tokenFor = async (identity: string) =>
      onPostgres ? { env: { CARDS_TOKEN: await server.token(identity) } } : {};
    const ids: string[] = [];
    for (const identity of ['alice', 'bob']) {
      const made = await box.cards(
        ['create', '--identity', identity, '--new-key', '--json'],
        await tokenFor(identity),
      );
      assert.equal(made.status, 0, said(made));
      ids.push(made.json<{ id: string }>().id);
    }
    const id = ids[0] as string;
    const revoked = await box.cards(['revoke', id, '--yes'], await tokenFor('alice'));
    assert.equal(revoked.status, 0, said(revoked));
  });
  after(() => Promise.all([server.dispose(), box.cleanup()]));

  test('the admin token is kept (beside the store, or in the database) and printed in the banner', () => {
    const file = server.paths.adminToken;
    assert.equal(server.store?.startsWith('postgres://') ?? false, onPostgres);
    if (onPostgres) {
      assert.match(bannerToken(server), /^cards_admin_/);
      assert.equal(existsSync(file), false, 'no token file beside a PostgreSQL store');
    } else {
      assert.equal(bannerToken(server), readFileSync(file, 'utf8').trim());
      assert.equal(statSync(file).mode & 0o777, 0o600);
    }
    assert.match(server.stdout(), /^page: .*loopback only/m);
  });

  test('list, history, requests', async () => {
    const list = await box.cards(['list', '--json']);
    assert.equal(list.status, 0, said(list));
    const { cards } = list.json<{ cards: { identity: string; state: string }[] }>();
    assert.deepEqual(
      cards.map((c) => [c.identity, c.state]),
      [
        ['alice', 'revoked'],
        ['bob', 'active'],
        ['alice', 'revocation'],
      ],
    );
    const text = await box.cards(['list', '--limit', '1']);
    assert.match(text.stdout, /more: --cursor 0/);
    const history = await box.cards(['history', 'alice', '--json']);
    assert.equal(
      history.json<{ chains: { revoked: boolean }[] }>().chains[0]?.revoked,
      true,
      said(history),
    );
    const missing = await box.cards(['history', 'nobody']);
    assert.equal(missing.status, 3, said(missing));
    assert.match(missing.stderr, /IDENTITY_NOT_FOUND/);
    const requests = await box.cards(['requests', '--limit', '50', '--json']);
    const paths = requests.json<{ requests: { path: string }[] }>().requests.map((r) => r.path);
    assert.ok(paths.includes('/card/v5'), said(requests));
  });

  test('export → reset --yes → import: the same registry; reset without --yes refused', async () => {
    const out = join(box.dir, 'export.ndjson');
    const exported = await box.cards(['export', '--out', out, '--json']);
    assert.equal(exported.status, 0, said(exported));
    assert.equal(exported.json<{ cards: number }>().cards, 3);
    const refused = await box.cards(['reset']);
    assert.equal(refused.status, 2, said(refused));
    const before = await box.cards(['key', 'log']);
    assert.equal(before.status, 0, said(before));
    const reset = await box.cards(['reset', '--yes', '--json']);
    assert.deepEqual(reset.json<{ cards: number }>().cards, 0);
    // The new log a reset began, and the key clients trust for it.
    const { log } = reset.json<{ log: { origin: string; vkey: string; path: string } }>();
    const info = (await (await fetch(`${server.url}/_cards/info`)).json()) as {
      log: { origin: string; vkey: string };
    };
    assert.match(log.origin, /\/reset-\d+$/);
    assert.deepEqual(log, {
      origin: info.log.origin,
      vkey: info.log.vkey,
      path: `/log/reset-${log.origin.split('/reset-')[1]}/`,
    });
    assert.ok(log.vkey.startsWith(`${log.origin}+`), log.vkey);
    // cards key log prints the new log's key at once: what verify and monitor trust next.
    const logKey = await box.cards(['key', 'log']);
    assert.equal(logKey.status, 0, said(logKey));
    assert.equal(logKey.stdout.trim(), log.vkey);
    assert.notEqual(before.stdout.trim(), log.vkey, 'the log key changed with the reset');
    const text = await box.cards(['reset', '--yes']);
    assert.match(text.stdout, /^log key: \S+\/reset-\d+\+/m);
    const json = await box.cards(['key', 'log', '--json']);
    assert.equal(json.json<{ vkey: string }>().vkey, text.stdout.match(/^log key: (\S+)$/m)?.[1]);
    const imported = await box.cards(['import', out, '--json']);
    assert.equal(imported.json<{ imported: number }>().imported, 3, said(imported));
    const again = await box.cards(['export']);
    assert.equal(again.stdout, readFileSync(out, 'utf8'));
    const twice = await box.cards(['import', out]);
    assert.equal(twice.status, 4, said(twice));
    assert.match(twice.stderr, /IMPORT_NOT_EMPTY/);
    // The next step in the CLI's words: --append, not the server's query string.
    assert.match(twice.stderr, /^ {2}pass --append /m);
  });

  test('export and import follow the profile like every setting: its db is a store, its url a server', async () => {
    const dump = await box.cards(['export']);
    assert.equal(dump.status, 0, said(dump));
    const local = join(box.dir, 'local.json');
    const made = await box.cards(['import', '--store', local], { input: dump.stdout });
    assert.equal(made.status, 0, said(made));
    // No flag, no CARDS_URL / CARDS_DB: the profile decides.
    const bare = { CARDS_URL: undefined, CARDS_DB: undefined };
    const set = await box.cards(['config', 'set', 'db', local], { env: bare });
    assert.equal(set.status, 0, said(set));
    const fromStore = await box.cards(['export'], { env: bare });
    assert.equal(fromStore.status, 0, said(fromStore));
    assert.equal(fromStore.stdout, dump.stdout, 'the profile db, read as a store');
    const url = await box.cards(['config', 'set', 'url', server.url], { env: bare });
    assert.equal(url.status, 0, said(url));
    const fromServer = await box.cards(['export', '--json', '--out', join(box.dir, 'b.ndjson')], {
      env: bare,
    });
    assert.equal(fromServer.status, 0, said(fromServer));
    assert.equal(readFileSync(join(box.dir, 'b.ndjson'), 'utf8'), dump.stdout, 'the profile url');
  });

  test('import --store bounds one line as the server does: IMPORT_LINE_TOO_LONG naming it', async () => {
    const dump = await box.cards(['export']);
    assert.equal(dump.status, 0, said(dump));
    const first = dump.stdout.slice(0, dump.stdout.indexOf('\n') + 1);
    const local = join(box.dir, 'long-line.json');
    const long = await box.cards(['import', '--store', local], {
      input: `${first}${'x'.repeat(200 * 1024)}`,
    });
    assert.equal(long.status, 4, said(long));
    assert.match(long.stderr, /IMPORT_LINE_TOO_LONG/);
    assert.match(long.stderr, /line 2 is longer than 131072 characters/);
  });

  test('history of identities a URL path does not carry as they are: ., .., /, %', async () => {
    const odd = ['.', '..', 'a/b', '100%', '%2E%2E'];
    for (const identity of odd) await postCard(server, identity, makeCard(identity).raw);
    for (const identity of odd) {
      const history = await box.cards(['history', identity, '--json']);
      assert.equal(history.status, 0, `${identity}: ${said(history)}`);
      assert.equal(history.json<{ identity: string }>().identity, identity);
    }
  });

  test('a wrong admin token from the environment is refused (exit 7)', async () => {
    const wrong = await box.cards(['list'], { env: { CARDS_ADMIN_TOKEN: 'x'.repeat(24) } });
    assert.equal(wrong.status, 7, said(wrong));
    assert.match(wrong.stderr, /ADMIN_TOKEN_INVALID/);
    assert.match(wrong.stderr, /the admin token sent came from CARDS_ADMIN_TOKEN/);
    const flag = await box.cards(['list', '--admin-token', 'y'.repeat(24)]);
    assert.equal(flag.status, 7, said(flag));
    assert.match(flag.stderr, /the admin token sent came from --admin-token/);
  });

  test('a refused token file beside the store: the refusal names that file', async () => {
    if (onPostgres) {
      // No token file beside a PostgreSQL store: another store's file is not this server's.
      const dir = join(box.dir, 'other-store');
      mkdirSync(dir, { recursive: true });
      const db = join(dir, 'cards.json');
      writeFileSync(`${db}.admin-token`, `${'z'.repeat(24)}\n`);
      const other = await box.cards(['list', '--db', db], {
        env: { CARDS_ADMIN_TOKEN: undefined },
      });
      assert.equal(other.status, 0, said(other));
      return;
    }
    // The server keeps the token it read at start; the file beside its store now says another.
    const file = server.paths.adminToken;
    const kept = readFileSync(file);
    writeFileSync(file, `${'z'.repeat(24)}\n`);
    try {
      const refused = await box.cards(['list']);
      assert.equal(refused.status, 7, said(refused));
      assert.match(refused.stderr, /ADMIN_TOKEN_INVALID/);
      assert.ok(refused.stderr.includes(`came from the token file ${file}`), refused.stderr);
    } finally {
      writeFileSync(file, kept);
    }
  });
});
