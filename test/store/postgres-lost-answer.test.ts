/**
 * A write whose answer is lost (src/store/postgres/batch.ts, database.ts), against a real
 * PostgreSQL behind a relay that cuts the connection at the write (test/helpers/pg-relay.ts):
 * after PostgreSQL answered it (the write took effect, the store never hears so) or before
 * PostgreSQL saw it (it did not). The store asks the database which happened: a card or a
 * Keyknox entry that is stored is acknowledged, one that is not is refused with 503, never the
 * other way round; while the database cannot be asked, the 503 says the write may have landed.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { cardIdOf } from '../../src/core/card-id.js';
import { CardsError } from '../../src/core/errors.js';
import { PostgresKeyknoxStore } from '../../src/store/postgres/keyknox-store.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import type { StoredCard } from '../../src/store/store.js';
import { COMMIT_QUERY, PgRelay } from '../helpers/pg-relay.js';
import { freshStoreUrl, sql } from '../helpers/postgres.js';

let next = 0;
function record(identity: string): StoredCard {
  const snapshot = Buffer.from(`{"identity":${JSON.stringify(identity)},"n":${++next}}`);
  return {
    id: cardIdOf(snapshot),
    identity,
    content_snapshot: snapshot.toString('base64'),
    signatures: [{ signer: 'service', signature: 'c2VydmljZQ==' }],
  };
}

/** A write's value, or the CardsError it was refused with. */
const outcome = <T>(write: Promise<T>): Promise<T | CardsError> =>
  write.catch((err: unknown) => {
    assert.ok(err instanceof CardsError, `not a CardsError: ${String(err)}`);
    return err;
  });

const seqOf = (insert: Promise<{ seq: number }>): Promise<number | CardsError> =>
  outcome(insert.then((entry) => entry.seq));

function assertUnavailable(result: unknown, unknown = false): void {
  assert.ok(result instanceof CardsError, `refused, not ${String(result)}`);
  assert.equal(result.code, 'STORE_UNAVAILABLE');
  assert.equal(result.status, 503);
  if (unknown) assert.match(result.message, /whether it was stored is not known/);
  else assert.doesNotMatch(result.message, /not known/);
}

const closing: (() => Promise<void>)[] = [];
after(async () => {
  for (const close of closing.reverse()) await close().catch(() => undefined);
});

/**
 * The card and Keyknox stores on a fresh database, through a relay; `url` is the database's
 * own. Connecting may take its time on a loaded host: only statements are held to
 * `statementTimeoutMs` (the store asks for three of them after a lost answer).
 */
async function relayed(statementTimeoutMs = 2000): Promise<{
  engine: { cards: PostgresStore; keyknox: PostgresKeyknoxStore };
  relay: PgRelay;
  url: string;
}> {
  const url = await freshStoreUrl();
  const { relay, url: through } = await PgRelay.before(url);
  closing.push(() => relay.close());
  const cards = await PostgresStore.open({
    url: through,
    poolSize: 2,
    statementTimeoutMs,
    connectTimeoutMs: 30_000,
  });
  closing.push(() => cards.close());
  return { engine: { cards, keyknox: new PostgresKeyknoxStore(cards.db) }, relay, url };
}

const storedIds = async (url: string): Promise<string[]> =>
  (await sql<{ id: string }>(url, 'SELECT id FROM cards ORDER BY seq')).map((row) => row.id);

describe('postgres: a card whose COMMIT is not answered', () => {
  test('committed but unanswered: acknowledged, as it is stored', async () => {
    const { engine, relay, url } = await relayed();
    assert.equal(await seqOf(engine.cards.insert(record('warm'))), 0);
    relay.cut = { at: COMMIT_QUERY, when: 'after-answer' };
    const card = record('alice');
    const result = await seqOf(engine.cards.insert(card));
    assert.equal(relay.cuts, 1, 'the relay cut the connection at the COMMIT');
    assert.equal(result, 1, 'acknowledged at the seq it was stored at');
    assert.deepEqual((await storedIds(url)).slice(1), [card.id]);
    assert.equal((await engine.cards.getCard(card.id))?.id, card.id);
    assert.equal(await seqOf(engine.cards.insert(record('bob'))), 2, 'seq stays dense');
  });

  test('cut before PostgreSQL saw the COMMIT: 503 and nothing stored', async () => {
    const { engine, relay, url } = await relayed();
    relay.cut = { at: COMMIT_QUERY, when: 'before-sent' };
    const card = record('carol');
    assertUnavailable(await seqOf(engine.cards.insert(card)));
    assert.equal(relay.cuts, 1);
    assert.deepEqual(await storedIds(url), []);
    assert.equal(await seqOf(engine.cards.insert(card)), 0, 'sent again, it goes in');
  });

  test('the database cannot be asked in time: 503 saying the card may be stored', async () => {
    // A 500 ms statement timeout: the store asks for 1.5 s while the relay turns it away.
    const { engine, relay, url } = await relayed(500);
    assert.equal(await seqOf(engine.cards.insert(record('warm'))), 0);
    relay.cut = { at: COMMIT_QUERY, when: 'after-answer' };
    const pending = seqOf(engine.cards.insert(record('dave')));
    await relay.cutDone();
    relay.goAway();
    assertUnavailable(await pending, true);
    assert.equal((await storedIds(url)).length, 2, 'it was stored: the answer did not deny it');
  });
});

describe('postgres: a Keyknox write that is not answered', () => {
  const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
  const alice = { app: 'app', identity: 'alice' };
  const blob = (revision: number) => ({
    meta: utf8('m'),
    value: utf8(`v${revision}`),
    version: 1,
    hash: `h${revision}`,
    revision,
  });
  const at = (table: string): Buffer => Buffer.from(`INTO ${table}`);

  test('a push that landed unanswered counts as landed; one never sent is 503', async () => {
    const { engine, relay } = await relayed();
    const store = engine.keyknox;
    relay.cut = { at: at('cards_keyknox_v1'), when: 'after-answer' };
    assert.equal(await outcome(store.v1Put(alice, blob(1), 0)), true);
    assert.equal(relay.cuts, 1);
    assert.equal((await store.v1Get(alice))?.hash, 'h1');
    relay.cut = { at: Buffer.from('UPDATE cards_keyknox_v1'), when: 'before-sent' };
    assertUnavailable(await outcome(store.v1Put(alice, blob(2), 1)));
    assert.equal((await store.v1Get(alice))?.revision, 1, 'nothing changed');
    assert.equal(await outcome(store.v1Put(alice, blob(2), 1)), true, 'sent again, it lands');
  });

  test('v2: a put and a delete that landed unanswered count as landed', async () => {
    const { engine, relay } = await relayed();
    const store = engine.keyknox;
    const address = { app: 'app', owner: 'alice', root: 'r', path: 'p', key: 'k' };
    const entry = {
      address,
      copies: [{ meta: utf8('m'), value: utf8('v') }],
      readers: [{ identity: 'alice', copy: 0 }],
      hash: 'h1',
      revision: 1,
    };
    relay.cut = { at: at('cards_keyknox_v2'), when: 'after-answer' };
    assert.equal(await outcome(store.v2Put(entry, 0)), true);
    assert.equal((await store.v2Get(address))?.hash, 'h1');
    relay.cut = { at: Buffer.from('DELETE FROM cards_keyknox_v2'), when: 'after-answer' };
    assert.equal(await outcome(store.v2Delete(address, 1)), true);
    assert.equal(relay.cuts, 2);
    assert.equal(await store.v2Get(address), undefined);
  });
});
