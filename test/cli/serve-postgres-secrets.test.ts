/**
 * What servers on one PostgreSQL share besides the cards: the admin token is kept in
 * the database like the service and app keys (cards_keys), made by the first server to start
 * and taken by every other one that has no --admin-token; the banner says where it came from.
 * `cards jwt --store postgres://…` mints tokens with the app key kept there, which the servers
 * accept. Servers in this process on real ports (in-process-server.ts, with `cards serve`'s
 * options and banner) and the CLI, on one throwaway database.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { makeCard } from '../http/card-kit.js';
import { startInProcess } from '../helpers/in-process-server.js';
import type { Served } from '../helpers/server.js';
import { said, sandbox } from './harness.js';
import { freshStoreUrl, sql, startOwnPostgres, type TestPostgres } from '../helpers/postgres.js';

let postgres: TestPostgres;
before(async () => {
  postgres = await startOwnPostgres();
});
after(() => postgres.destroy());

const tokenOf = (server: Served): string =>
  /^admin token: (\S+)$/m.exec(server.stdout())?.[1] ?? 'none printed';

async function adminInfo(server: Served, token?: string): Promise<number> {
  const response = await fetch(`${server.url.replace('0.0.0.0', '127.0.0.1')}/_cards/info`, {
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
  });
  await response.arrayBuffer();
  return response.status;
}

describe('admin token kept in the database', () => {
  test('the first server makes it, a second one with no --admin-token takes the same one', async (t) => {
    const store = await freshStoreUrl(postgres);
    const a = await startInProcess({ store, args: [] });
    t.after(() => a.dispose());
    // Listening beyond loopback: the admin API needs the token.
    const b = await startInProcess({ store, args: ['--host', '0.0.0.0'] });
    t.after(() => b.dispose());
    const token = tokenOf(a);
    assert.match(token, /^cards_admin_/);
    assert.equal(tokenOf(b), token, 'one admin token for both servers');
    assert.match(
      a.stdout(),
      /^admin token from: kept in the database \(cards_keys, name "admin-token"\), made by this start$/m,
    );
    assert.match(
      b.stdout(),
      /^admin token from: kept in the database .*made by an earlier start$/m,
    );
    const [row] = await sql<{ pem: string }>(
      store,
      `SELECT pem FROM cards_keys WHERE name = 'admin-token'`,
    );
    assert.equal(row?.pem, token);
    assert.equal(await adminInfo(b, token), 200);
    assert.equal(await adminInfo(b, `${token}x`), 401);
    assert.equal(await adminInfo(b), 401);
  });

  test('--admin-token wins and is not kept; the database keeps its own', async (t) => {
    const store = await freshStoreUrl(postgres);
    const given = 'given-admin-token-0123456789';
    const a = await startInProcess({ store, args: ['--admin-token', given] });
    t.after(() => a.dispose());
    assert.equal(tokenOf(a), given);
    assert.doesNotMatch(a.stdout(), /^admin token from:/m);
    const rows = await sql(store, `SELECT 1 FROM cards_keys WHERE name = 'admin-token'`);
    assert.equal(rows.length, 0, 'a given token is never written to the database');
  });
});

describe('cards jwt --store postgres://…', () => {
  test('signs with the app key kept in the database; the servers accept the token', async (t) => {
    const store = await freshStoreUrl(postgres);
    const box = sandbox();
    t.after(() => box.cleanup());
    // Before any server made the schema and keys: nothing to sign with, and nothing is made.
    const none = await box.cards(['jwt', '--identity', 'alice', '--store', store]);
    assert.equal(none.status, 7, said(none));
    assert.match(none.stderr, /No app key is kept in postgres:\/\/postgres:\*\*\*@/);
    assert.equal((await sql(store, `SELECT to_regclass('cards_keys') AS t`))[0]?.t, null);
    const server = await startInProcess({ store, args: ['--quiet'] });
    t.after(() => server.dispose());
    const minted = await box.cards(['jwt', '--identity', 'alice', '--store', store, '--json']);
    assert.equal(minted.status, 0, said(minted));
    const { token, keyFile } = minted.json<{ token: string; keyFile: string }>();
    assert.match(keyFile, /cards_keys, name "app-key"/);
    const card = makeCard('alice');
    const created = await fetch(`${server.url}/card/v5`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Service ${token}` },
      body: JSON.stringify(card.raw),
    });
    assert.equal(created.status, 201, await created.text());
    // The CLI with no credentials for it: the hint names the way to a token for a server whose
    // app key is in its database (no key file beside any store), and that way works.
    const bare = ['create', '--identity', 'bob', '--new-key', '--url', server.url];
    const refused = await box.cards(bare);
    assert.equal(refused.status, 7, said(refused));
    assert.match(refused.stderr, /cards jwt --store URL --identity bob/);
    const bobs = await box.cards(['jwt', '--identity', 'bob', '--store', store]);
    const accepted = await box.cards([...bare, '--token', bobs.stdout.trim()]);
    assert.equal(accepted.status, 0, said(accepted));
    const both = await box.cards([
      'jwt',
      '--identity',
      'alice',
      '--store',
      store,
      '--app-key',
      'k',
    ]);
    assert.equal(both.status, 2, said(both));
  });
});
