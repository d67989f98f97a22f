/**
 * Several servers on one PostgreSQL (in this process, on real ports; the one killed with -9 a
 * `cards serve` process), and their faults, against a real PostgreSQL of this test's own
 * (test/helpers/postgres.ts), every load bounded in count and time:
 * - two servers are one service: a card made through one is read, replaced, revoked through the
 *   other; racing requests split across both have exactly one winner;
 * - the database stopped under load: 503 STORE_UNAVAILABLE (the Error object, no library
 *   message, one that says the store is away, for a search as for a write), the servers come back by themselves, nothing acknowledged is lost, nothing refused
 *   appears;
 * - kill -9 of one of two servers under load: the other keeps serving, every acknowledged card
 *   is there;
 * - a stuck query (a row lock held by a test connection) cannot hold a request past the
 *   statement timeout; a full pool answers 503 instead of queueing without end.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { startServer, type Served } from '../helpers/server.js';
import { startInProcess } from '../helpers/in-process-server.js';
import { freshStoreUrl, startOwnPostgres, type TestPostgres } from '../helpers/postgres.js';
import { makeCard } from '../http/card-kit.js';
import { call, disposer, tokenFor, type Reply } from './kit.js';

let server: TestPostgres;
before(async () => {
  server = await startOwnPostgres();
});
after(() => server.destroy());

/** 503 STORE_UNAVAILABLE as the Error object, with no library text in it. */
function assertUnavailable(reply: Reply, context: string): void {
  assert.equal(reply.status, 503, `${context}: ${reply.text}`);
  const body = JSON.parse(reply.text) as { code: string; message: string };
  assert.deepEqual(Object.keys(body), ['code', 'message']);
  assert.equal(body.code, '10006', context);
  assert.doesNotMatch(body.message, /ECONN|pg|terminat|timeout exceeded|SQLSTATE/i, context);
  // A read as well as a write: the message says the store is away, never that it was written.
  assert.equal(
    body.message,
    'The card store is unavailable: its database cannot be reached or is busy. Try again later.',
    context,
  );
}

interface LoadResult {
  acked: string[];
  refused: string[];
  /** 503 saying the card may be stored (its COMMIT went unanswered and could not be asked). */
  unknown: string[];
  other: Reply[];
}

/** `workers` loops creating cards through `servers` (round robin) until `stop()`. */
function load(servers: () => Served[], workers: number, limit = 2000) {
  const result: LoadResult = { acked: [], refused: [], unknown: [], other: [] };
  let running = true;
  let sent = 0;
  const loops = Array.from({ length: workers }, async (_, w) => {
    while (running && sent < limit) {
      sent++;
      const targets = servers();
      const target = targets[(sent + w) % targets.length] as Served;
      const card = makeCard(`load-${w}`);
      let reply: Reply;
      try {
        reply = await call(target, 'POST', '/card/v5', { body: card.raw, identity: `load-${w}` });
      } catch {
        continue; // a connection refused or reset by a killed server: never acknowledged
      }
      if (reply.status === 201) result.acked.push(card.id);
      else if (reply.status === 503)
        (/not known/.test(reply.text) ? result.unknown : result.refused).push(card.id);
      else result.other.push(reply);
      if (reply.status === 503) await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });
  return {
    result,
    async stop(): Promise<LoadResult> {
      running = false;
      await Promise.all(loops);
      return result;
    },
  };
}

const wait = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check().catch(() => false)) return;
    await wait(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('two servers on one PostgreSQL', () => {
  test('one service: made through one, replaced and revoked through the other; races split across both', async (t) => {
    const keep = disposer(t);
    const store = await freshStoreUrl(server);
    const a = keep(await startInProcess({ store, args: ['--quiet'] }));
    const b = keep(await startInProcess({ store, args: ['--quiet'] }));
    assert.equal(a.serviceKey, b.serviceKey, 'one service key, kept in the database');
    assert.match(b.stdout(), /^store: PostgreSQL postgres:\/\/postgres:\*\*\*@/m);
    assert.match(b.stdout(), /^keys: service key kept in the database/m);
    const card = makeCard('alice');
    assert.equal((await call(a, 'POST', '/card/v5', { body: card.raw })).status, 201);
    assert.equal((await call(b, 'GET', `/card/v5/${card.id}`)).status, 200);
    const next = makeCard('alice', { previousCardId: card.id });
    assert.equal((await call(b, 'POST', '/card/v5', { body: next.raw })).status, 201);
    const old = await call(a, 'GET', `/card/v5/${card.id}`);
    assert.equal(old.headers.get('x-service-is-superseeded'), 'true');
    const racing = Array.from({ length: 40 }, () => makeCard('alice', { previousCardId: next.id }));
    const replies = await Promise.all(
      racing.map((c, i) => call(i % 2 ? a : b, 'POST', '/card/v5', { body: c.raw })),
    );
    assert.equal(replies.filter((r) => r.status === 201).length, 1);
    for (const reply of replies.filter((r) => r.status !== 201))
      assert.equal((JSON.parse(reply.text) as { code: string }).code, '40037');
    const winner = racing[replies.findIndex((r) => r.status === 201)] as { id: string };
    const revokes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(i % 2 ? a : b, 'POST', `/card/v5/actions/revoke/${winner.id}`, { raw: '{}' }),
      ),
    );
    assert.equal(revokes.filter((r) => r.status === 200).length, 1);
    for (const reply of revokes.filter((r) => r.status !== 200))
      assert.equal((JSON.parse(reply.text) as { code: string }).code, '40310');
    const found = await call(b, 'POST', '/card/v5/actions/search', { body: { identity: 'alice' } });
    assert.deepEqual(JSON.parse(found.text), []);
  });

  test('kill -9 of one of two servers under load: the other serves on, nothing acknowledged lost', async (t) => {
    const keep = disposer(t);
    const store = await freshStoreUrl(server);
    const a = keep(await startServer({ store, args: ['--quiet'] }));
    const b = keep(await startInProcess({ store, args: ['--quiet'] }));
    let alive: Served[] = [a, b];
    const running = load(() => alive, 6);
    await until('some load', async () => running.result.acked.length > 40);
    await a.kill();
    alive = [b];
    const ackedAtKill = running.result.acked.length;
    await until(
      'more load on the survivor',
      async () => running.result.acked.length > ackedAtKill + 40,
    );
    const result = await running.stop();
    assert.deepEqual(
      result.other.map((r) => r.status),
      [],
    );
    for (const id of result.acked)
      assert.equal((await call(b, 'GET', `/card/v5/${id}`)).status, 200, id);
  });
});

describe('faults', () => {
  test('the database stopped under load: 503, back by itself, nothing acknowledged lost', async (t) => {
    const keep = disposer(t);
    const store = await freshStoreUrl(server);
    const a = keep(
      await startInProcess({ store, args: ['--quiet', '--statement-timeout', '2000'] }),
    );
    await tokenFor(a, 'alice'); // minted from the key in the database, while it is up
    const running = load(() => [a], 4);
    await until('some load', async () => running.result.acked.length > 30);
    server.stop('fast');
    await until('refusals', async () => running.result.refused.length > 10);
    const down = await call(a, 'POST', '/card/v5', { body: makeCard('alice').raw });
    assertUnavailable(down, 'create while the database is down');
    assertUnavailable(await call(a, 'GET', `/card/v5/${'a'.repeat(64)}`), 'get while down');
    const search = await call(a, 'POST', '/card/v5/actions/search', { body: { identity: 'bob' } });
    assertUnavailable(search, 'search while down');
    server.start();
    const ackedAtStart = running.result.acked.length;
    await until('reconnect', async () => running.result.acked.length > ackedAtStart + 30);
    const result = await running.stop();
    assert.deepEqual(
      result.other.map((r) => r.status),
      [],
    );
    for (const id of result.acked)
      assert.equal((await call(a, 'GET', `/card/v5/${id}`)).status, 200, `acknowledged ${id}`);
    for (const id of result.refused)
      assert.equal((await call(a, 'GET', `/card/v5/${id}`)).status, 404, `refused ${id}`);
  });

  test('a stuck query cannot hold a request past the statement timeout; a full pool is 503', async (t) => {
    const keep = disposer(t);
    const store = await freshStoreUrl(server);
    const a = keep(
      await startInProcess({
        store,
        args: ['--quiet', '--statement-timeout', '500', '--pool-size', '2'],
      }),
    );
    const card = makeCard('alice');
    assert.equal((await call(a, 'POST', '/card/v5', { body: card.raw })).status, 201);
    const blocker = new pg.Client({ connectionString: store });
    await blocker.connect();
    try {
      // Holds the counter row every insert updates: inserts wait on the lock.
      await blocker.query('BEGIN');
      await blocker.query('SELECT next_seq FROM cards_counter WHERE id = 1 FOR UPDATE');
      const started = Date.now();
      const stuck = await call(a, 'POST', '/card/v5', { body: makeCard('alice').raw });
      assertUnavailable(stuck, 'insert behind a held lock');
      assert.ok(Date.now() - started < 3000, `answered after ${Date.now() - started} ms`);
      assert.equal((await call(a, 'GET', `/card/v5/${card.id}`)).status, 200, 'reads go on');
      // Two connections, each stuck up to the timeout; 30 more requests cannot all wait.
      const burst = await Promise.all(
        Array.from({ length: 30 }, () =>
          call(a, 'POST', '/card/v5', { body: makeCard('alice').raw }),
        ),
      );
      for (const reply of burst) assertUnavailable(reply, 'full pool');
      assert.ok(Date.now() - started < 10_000, 'no unbounded queue');
    } finally {
      await blocker.query('ROLLBACK');
      await blocker.end();
    }
    assert.equal((await call(a, 'POST', '/card/v5', { body: makeCard('alice').raw })).status, 201);
  });
});
