/**
 * Group commit of the PostgreSQL store (src/store/postgres/batch.ts), against a real PostgreSQL:
 * cards that arrive together share one transaction (one commit), each card of a batch is decided in
 * order against the stored cards and the earlier cards of its batch (the losers get the JSON
 * store's codes), seq stays dense and in commit order, a batch whose COMMIT fails rejects every
 * card of it with 503 and stores none, and a serialization failure at COMMIT is tried again. A
 * batch is made by holding the counter row from a test connection: the store's writer waits on it
 * with one card while the others queue behind it.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, test } from 'node:test';
import pg from 'pg';
import { cardIdOf } from '../../src/core/card-id.js';
import { CardsError } from '../../src/core/errors.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import type { StoredCard } from '../../src/store/store.js';
import { freshStoreUrl, sql } from '../helpers/postgres.js';

let next = 0;
function record(identity: string, previous?: StoredCard, revoking = false): StoredCard {
  const snapshot = Buffer.from(`{"identity":${JSON.stringify(identity)},"n":${++next}}`);
  return {
    id: cardIdOf(snapshot),
    identity,
    ...(previous && { previous_card_id: previous.id }),
    ...(revoking && { revoking: true as const }),
    content_snapshot: snapshot.toString('base64'),
    signatures: [{ signer: 'service', signature: 'c2VydmljZQ==' }],
  };
}

const outcome = (insert: Promise<{ seq: number }>): Promise<number | string> =>
  insert.then(
    (entry) => entry.seq,
    (err: unknown) => (err instanceof CardsError ? err.code : `not a CardsError: ${String(err)}`),
  );

const stores: PostgresStore[] = [];
after(async () => {
  for (const store of stores) await store.close().catch(() => undefined);
});

async function open(): Promise<{ store: PostgresStore; url: string }> {
  const url = await freshStoreUrl();
  const store = await PostgresStore.open({ url, poolSize: 4 });
  stores.push(store);
  return { store, url };
}

/**
 * Runs `inserts()` while a test connection holds the counter row: the first card's batch waits
 * on it, the rest queue and go in together once it is let go. Resolves with their outcomes.
 */
async function asOneBatch(
  url: string,
  first: () => Promise<number | string>,
  rest: () => Promise<number | string>[],
): Promise<(number | string)[]> {
  const blocker = new pg.Client({ connectionString: url });
  await blocker.connect();
  try {
    await blocker.query('BEGIN');
    await blocker.query('SELECT next_seq FROM cards_counter WHERE id = 1 FOR UPDATE');
    const head = first();
    // The writer is waiting on the lock once PostgreSQL shows it so.
    for (let i = 0; i < 200; i++) {
      const [row] = await sql<{ n: string }>(
        url,
        `SELECT count(*) AS n FROM pg_stat_activity
         WHERE wait_event_type = 'Lock' AND application_name = 'cards' AND datname = current_database()`,
      );
      if (Number(row?.n) > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const tail = rest();
    await blocker.query('ROLLBACK');
    return await Promise.all([head, ...tail]);
  } finally {
    await blocker.end();
  }
}

/**
 * A deferred constraint trigger that fails the COMMIT of any transaction holding a card of
 * `identity` (a plain word) with SQLSTATE `code`.
 */
async function failCommitOf(url: string, identity: string, code: string): Promise<void> {
  await sql(
    url,
    `CREATE FUNCTION refuse_${identity}() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN IF NEW.identity = '${identity}' THEN
       RAISE EXCEPTION 'refused' USING ERRCODE = '${code}'; END IF;
     RETURN NULL; END $$`,
  );
  await sql(
    url,
    `CREATE CONSTRAINT TRIGGER ${identity} AFTER INSERT ON cards DEFERRABLE INITIALLY DEFERRED
     FOR EACH ROW EXECUTE FUNCTION refuse_${identity}()`,
  );
}

describe('postgres group commit', () => {
  test('cards arriving together share one commit; each is decided against the earlier ones of its batch', async () => {
    const { store, url } = await open();
    const a = record('alice');
    const x = record('xavier');
    const y1 = record('xavier', x);
    const y2 = record('xavier', x);
    const z = record('xavier', y1, true);
    const afterRevoke = record('xavier', z);
    const c = record('carol');
    const other = record('bob', c);
    const flushesBefore = store.stats().flushes;
    const outcomes = await asOneBatch(
      url,
      () => outcome(store.insert(a)),
      () => [x, x, y1, y2, z, afterRevoke, c, other].map((card) => outcome(store.insert(card))),
    );
    assert.deepEqual(outcomes, [
      0,
      1,
      'SNAPSHOT_NOT_UNIQUE',
      2,
      'PREVIOUS_SUPERSEDED', // y2 names x, replaced by y1 a moment earlier
      3,
      'CHAIN_REVOKED', // names the revoking card z
      4,
      'PREVIOUS_IDENTITY_MISMATCH', // bob names carol's card of the same batch
    ]);
    assert.equal(store.stats().flushes - flushesBefore, 2, 'the first card, then one batch');
    assert.equal(store.stats().appends, 5);
    const rows = await sql<{ id: string; seq: string; chain_id: string }>(
      url,
      'SELECT id, seq, chain_id FROM cards ORDER BY seq',
    );
    assert.deepEqual(
      rows.map((row) => [row.id, Number(row.seq)]),
      [a, x, y1, z, c].map((card, i) => [card.id, i]),
    );
    assert.deepEqual(
      rows.slice(1, 4).map((row) => row.chain_id),
      [x.id, x.id, x.id],
    );
    assert.equal((await store.getCard(x.id))?.state, 'revoked');
    assert.equal(await store.count(), 5);
  });

  test('a batch whose COMMIT fails: every card of it 503, none stored, seq stays dense', async () => {
    const { store, url } = await open();
    // The COMMIT of any transaction holding "poison" fails as a full disk would (53100: the
    // database's trouble, not one card's).
    await failCommitOf(url, 'poison', '53100');
    const first = record('alice');
    const batch = [record('bob'), record('poison'), record('carol')];
    const outcomes = await asOneBatch(
      url,
      () => outcome(store.insert(first)),
      () => batch.map((card) => outcome(store.insert(card))),
    );
    assert.deepEqual(outcomes, [0, 'STORE_UNAVAILABLE', 'STORE_UNAVAILABLE', 'STORE_UNAVAILABLE']);
    for (const card of batch) assert.equal(await store.getCard(card.id), undefined);
    assert.equal(await outcome(store.insert(batch[0] as StoredCard)), 1);
    assert.equal(await store.count(), 2);
  });

  test("a card whose row PostgreSQL refuses is that card's refusal alone: the rest of its batch commits", async () => {
    const { store, url } = await open();
    // Rows the core never lets through, handed to the store directly: U+0000 (22021, text
    // cannot hold it) and an identity past the index's row size (54000).
    const first = record('alice');
    const batch = [
      record('bob'),
      record('x\u0000'),
      record('carol'),
      record(randomBytes(2400).toString('base64')),
      record('dave'),
    ];
    const outcomes = await asOneBatch(
      url,
      () => outcome(store.insert(first)),
      () => batch.map((card) => outcome(store.insert(card))),
    );
    assert.deepEqual(outcomes, [0, 1, 'STORE_UNAVAILABLE', 2, 'STORE_UNAVAILABLE', 3]);
    const refused = await store.insert(batch[1] as StoredCard).catch((err: unknown) => err);
    assert.ok(refused instanceof CardsError);
    assert.equal(refused.status, 500, 'not a 503: trying again cannot help');
    const rows = await sql<{ identity: string; seq: string }>(
      url,
      'SELECT identity, seq FROM cards ORDER BY seq',
    );
    assert.deepEqual(
      rows.map((row) => [row.identity, Number(row.seq)]),
      [
        ['alice', 0],
        ['bob', 1],
        ['carol', 2],
        ['dave', 3],
      ],
    );
  });

  test("a row a trigger refuses at COMMIT is that card's refusal alone", async () => {
    const { store, url } = await open();
    // The COMMIT of a transaction holding "mallory" fails for that row (23514, a check).
    await failCommitOf(url, 'mallory', '23514');
    const batch = [record('bob'), record('mallory'), record('carol')];
    const outcomes = await asOneBatch(
      url,
      () => outcome(store.insert(record('alice'))),
      () => batch.map((card) => outcome(store.insert(card))),
    );
    assert.deepEqual(outcomes, [0, 1, 'STORE_UNAVAILABLE', 2]);
    assert.equal(await store.getCard((batch[1] as StoredCard).id), undefined);
    assert.equal(await store.count(), 3);
  });

  test('a serialization failure at COMMIT is tried again', async () => {
    const { store, url } = await open();
    // Fails the first COMMIT holding "flaky" with SQLSTATE 40001, lets the next one through:
    // the count of tries is a sequence, since nextval outlives the rollback.
    await sql(url, `CREATE SEQUENCE flaky_tries`);
    await sql(
      url,
      `CREATE FUNCTION flaky() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF NEW.identity = 'flaky' AND nextval('flaky_tries') = 1 THEN
           RAISE EXCEPTION 'retry me' USING ERRCODE = '40001';
         END IF;
         RETURN NULL;
       END $$`,
    );
    await sql(
      url,
      `CREATE CONSTRAINT TRIGGER flaky AFTER INSERT ON cards DEFERRABLE INITIALLY DEFERRED
       FOR EACH ROW EXECUTE FUNCTION flaky()`,
    );
    const outcomes = await Promise.all(
      [record('flaky'), record('dora')].map((card) => outcome(store.insert(card))),
    );
    assert.deepEqual([...outcomes].sort(), [0, 1]);
    const [tries] = await sql<{ last_value: string }>(url, 'SELECT last_value FROM flaky_tries');
    assert.equal(Number(tries?.last_value), 2, 'the batch ran twice');
  });
});
