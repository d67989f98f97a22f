/**
 * A server never signs a fork of its log (C2SP tlog-checkpoint: one append-only tree per
 * origin). The last checkpoint the log key signed is kept apart from the log (beside the key
 * file; cards_log_signed on PostgreSQL): a log deleted, emptied or restored from an older backup
 * is refused at start (LOG_ROLLED_BACK, 91011, exit 1) instead of re-created under its origin,
 * and `cards serve --new-log` begins the next log (`<origin>/reset-N`) and goes on from there.
 */
import assert from 'node:assert/strict';
import { cpSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { makeTempDir, removeTempDirs, runServeToExit, type Served } from '../helpers/server.js';
import { startInProcess } from '../helpers/in-process-server.js';
import { freshStoreUrl, sql, testPostgres, type TestPostgres } from '../helpers/postgres.js';
import { makeCard } from '../http/card-kit.js';
import { call } from '../reliability/kit.js';

after(removeTempDirs);

const ARGS = ['--quiet', '--log-interval', '20'];

/** Creates `n` cards and waits until the log's checkpoint signs all `total` of them. */
async function addCards(server: Served, n: number, total: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const identity = `fork${i % 5}`;
    const reply = await call(server, 'POST', '/card/v5', {
      body: makeCard(identity).raw,
      identity,
    });
    assert.equal(reply.status, 201, reply.text);
  }
  for (let wait = 0; wait < 200; wait++) {
    const text = await (await fetch(`${server.url}/log/checkpoint`)).text();
    if (text.split('\n')[1] === String(total)) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.fail(`the log did not reach ${total} entries`);
}

const originOf = (server: Served): string => {
  const vkey = /^log key: (\S+)$/m.exec(server.stdout())?.[1];
  assert.ok(vkey, server.stdout());
  return vkey.slice(0, vkey.indexOf('+'));
};

const checkpointOf = async (server: Served): Promise<string[]> =>
  (await (await fetch(`${server.url}/log/checkpoint`)).text()).split('\n');

/** A start refused for a log behind what its key signed: exit 1, code 91011, what and how out. */
function assertRefused(
  refused: { code: number | null; stderr: string },
  found: RegExp,
  origin: string,
  signed: number,
): void {
  assert.equal(refused.code, 1, refused.stderr);
  assert.match(refused.stderr, /LOG_ROLLED_BACK|91011/);
  assert.match(refused.stderr, found);
  assert.ok(refused.stderr.includes(`its key signed size ${signed} of ${origin} `), refused.stderr);
  assert.ok(refused.stderr.includes('--new-log'), refused.stderr);
  assert.ok(refused.stderr.includes(`${origin}/reset-1`), 'names the origin --new-log begins');
}

describe('JSON engine: a log missing or behind what its key signed is refused', () => {
  test('log folder deleted; store and log restored from an older copy; --new-log', async () => {
    let server = await startInProcess({ args: ARGS });
    const dir = server.dir;
    const serve = ['--port', '0', '--db', join(dir, 'cards.json'), ...ARGS];
    try {
      await addCards(server, 12, 12);
      const origin = originOf(server);
      await assert.doesNotReject(server.stop());
      assert.ok(existsSync(join(dir, 'cards.json.log-signed')), 'the record beside the key');
      const older = makeTempDir('cards-log-older-');
      cpSync(dir, older, { recursive: true });
      server = await startInProcess({ dir, args: ARGS });
      await addCards(server, 7, 19);
      await assert.doesNotReject(server.stop());
      const signed = readFileSync(join(dir, 'cards.json.log-signed'), 'utf8');
      assert.ok(signed.startsWith(`${origin}\n19\n`), signed);

      // The log folder deleted: the store still holds its 19 cards.
      const deleted = makeTempDir('cards-log-deleted-');
      cpSync(dir, deleted, { recursive: true });
      rmSync(join(deleted, 'cards.json.log'), { recursive: true });
      const db = (folder: string): string[] => ['--db', join(folder, 'cards.json')];
      assertRefused(
        await runServeToExit([...serve, ...db(deleted)], { cwd: deleted }),
        /cards\.json\.log holds no log, but/,
        origin,
        19,
      );
      assert.ok(!existsSync(join(deleted, 'cards.json.log')), 'a refusal makes no log');

      // Store and log restored from the older copy (size 12), the key and its record kept.
      const restored = makeTempDir('cards-log-restored-');
      cpSync(dir, restored, { recursive: true });
      for (const file of ['cards.json', 'cards.json.log'])
        rmSync(join(restored, file), { recursive: true, force: true });
      for (const file of ['cards.json', 'cards.json.log'])
        cpSync(join(older, file), join(restored, file), { recursive: true });
      assertRefused(
        await runServeToExit([...serve, ...db(restored)], { cwd: restored }),
        new RegExp(`is behind, at size 12 of ${origin} \\(root`),
        origin,
        19,
      );

      // --new-log: the next origin, holding the store's cards, and kept across a restart.
      server = await startInProcess({ dir: restored, args: [...ARGS, '--new-log'] });
      assert.equal(originOf(server), `${origin}/reset-1`);
      assert.deepEqual((await checkpointOf(server)).slice(0, 2), [`${origin}/reset-1`, '12']);
      await addCards(server, 3, 15);
      await assert.doesNotReject(server.stop());
      server = await startInProcess({ dir: restored, args: ARGS });
      assert.equal(originOf(server), `${origin}/reset-1`, 'the new log, without the flag');
      assert.deepEqual((await checkpointOf(server)).slice(0, 2), [`${origin}/reset-1`, '15']);
    } finally {
      await server.dispose();
    }
  });
});

describe('JSON engine: a log of another origin in between', () => {
  test('the log folder deleted, one start under another --log-origin, deleted again: refused', async () => {
    let server = await startInProcess({ args: ARGS });
    const dir = server.dir;
    try {
      await addCards(server, 6, 6);
      const origin = originOf(server);
      await assert.doesNotReject(server.stop());
      rmSync(join(dir, 'cards.json.log'), { recursive: true });
      server = await startInProcess({ dir, args: [...ARGS, '--log-origin', 'example.org/detour'] });
      await addCards(server, 2, 8);
      await assert.doesNotReject(server.stop());
      rmSync(join(dir, 'cards.json.log'), { recursive: true });
      assertRefused(
        await runServeToExit(['--port', '0', '--db', join(dir, 'cards.json'), ...ARGS], {
          cwd: dir,
        }),
        /cards\.json\.log holds no log, but/,
        origin,
        6,
      );
      assert.ok(!existsSync(join(dir, 'cards.json.log')), 'a refusal makes no log');
      // The record keeps the last checkpoint of each origin.
      const record = readFileSync(join(dir, 'cards.json.log-signed'), 'utf8');
      assert.ok(record.startsWith(`${origin}\n6\n`), record);
      assert.match(record, /\nexample\.org\/detour\n8\n/);
    } finally {
      await server.dispose();
    }
  });
});

describe('PostgreSQL: log tables emptied or restored are refused', () => {
  let pgServer: TestPostgres;
  before(async () => {
    pgServer = await testPostgres();
  });

  test('log tables emptied; cards and log tables restored from an older copy; --new-log', async (t) => {
    const store = await freshStoreUrl(pgServer);
    let server = await startInProcess({ store, args: ARGS });
    t.after(() => server.dispose());
    await addCards(server, 10, 10);
    const origin = originOf(server);
    await assert.doesNotReject(server.stop());
    for (const table of ['cards', 'cards_counter', 'cards_log_tiles', 'cards_log_state'])
      await sql(store, `CREATE TABLE older_${table} AS SELECT * FROM ${table}`);
    server = await startInProcess({ store, args: ARGS });
    await addCards(server, 6, 16);
    await assert.doesNotReject(server.stop());
    const serve = ['--port', '0', '--store', store, ...ARGS];

    // The log tables emptied (as dropped and made again): the cards are still there.
    await sql(store, 'CREATE TABLE newer_tiles AS SELECT * FROM cards_log_tiles');
    await sql(store, 'CREATE TABLE newer_state AS SELECT * FROM cards_log_state');
    await sql(store, 'DELETE FROM cards_log_tiles');
    await sql(store, 'UPDATE cards_log_state SET checkpoint = NULL, epoch = 0');
    assertRefused(await runServeToExit(serve), /holds no log, but/, origin, 16);
    const [state] = await sql(store, 'SELECT checkpoint FROM cards_log_state');
    assert.equal(state?.checkpoint, null, 'a refusal signs nothing');
    await sql(store, 'INSERT INTO cards_log_tiles SELECT * FROM newer_tiles');
    await sql(
      store,
      'UPDATE cards_log_state SET checkpoint = (SELECT checkpoint FROM newer_state)',
    );
    server = await startInProcess({ store, args: ARGS });
    assert.equal((await checkpointOf(server))[1], '16', 'the log put back starts');
    await assert.doesNotReject(server.stop());

    // Cards and log restored from the older copy (10 cards), cards_log_signed kept.
    for (const table of ['cards', 'cards_counter', 'cards_log_tiles', 'cards_log_state']) {
      await sql(store, `DELETE FROM ${table}`);
      await sql(store, `INSERT INTO ${table} SELECT * FROM older_${table}`);
    }
    assertRefused(
      await runServeToExit(serve),
      new RegExp(`is behind, at size 10 of ${origin} \\(root`),
      origin,
      16,
    );

    server = await startInProcess({ store, args: [...ARGS, '--new-log'] });
    assert.equal(originOf(server), `${origin}/reset-1`);
    assert.deepEqual((await checkpointOf(server)).slice(0, 2), [`${origin}/reset-1`, '10']);
    await addCards(server, 2, 12);
    await assert.doesNotReject(server.stop());
    server = await startInProcess({ store, args: ARGS });
    assert.deepEqual((await checkpointOf(server)).slice(0, 2), [`${origin}/reset-1`, '12']);
  });

  test('log tables emptied, one start under another --log-origin, emptied again: refused', async (t) => {
    const store = await freshStoreUrl(pgServer);
    let server = await startInProcess({ store, args: ARGS });
    t.after(() => server.dispose());
    await addCards(server, 5, 5);
    const origin = originOf(server);
    await assert.doesNotReject(server.stop());
    const empty = async (): Promise<void> => {
      await sql(store, 'DELETE FROM cards_log_tiles');
      await sql(store, 'UPDATE cards_log_state SET checkpoint = NULL, epoch = 0');
    };
    await empty();
    server = await startInProcess({ store, args: [...ARGS, '--log-origin', 'example.org/detour'] });
    await addCards(server, 1, 6);
    await assert.doesNotReject(server.stop());
    await empty();
    assertRefused(
      await runServeToExit(['--port', '0', '--store', store, ...ARGS]),
      /holds no log, but/,
      origin,
      5,
    );
    const [state] = await sql(store, 'SELECT checkpoint FROM cards_log_state');
    assert.equal(state?.checkpoint, null, 'a refusal signs nothing');
    const [kept] = await sql(store, 'SELECT checkpoint FROM cards_log_signed');
    assert.ok(String(kept?.checkpoint).startsWith(`${origin}\n5\n`), String(kept?.checkpoint));
    assert.match(String(kept?.checkpoint), /\nexample\.org\/detour\n6\n/);
  });
});
