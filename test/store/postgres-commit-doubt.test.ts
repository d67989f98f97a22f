/**
 * A COMMIT whose answer is lost (src/store/postgres/batch.ts), against a real PostgreSQL behind
 * a TCP relay of this test's own that cuts the connection at the COMMIT: either after PostgreSQL
 * answered it (the batch is stored, the store never hears so) or before PostgreSQL saw it (the
 * batch is rolled back). The store asks the database which happened: a stored card is
 * acknowledged, one that is not stored is refused with 503, never the other way round; and while
 * the database cannot be asked, the 503 says that the card may be stored.
 */
import assert from 'node:assert/strict';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { after, describe, test } from 'node:test';
import { cardIdOf } from '../../src/core/card-id.js';
import { CardsError } from '../../src/core/errors.js';
import { openPostgresStore, type PostgresStore } from '../../src/store/postgres/postgres-store.js';
import type { StoredCard } from '../../src/store/store.js';
import { freshStoreUrl, sql } from '../helpers/postgres.js';

/** The simple-query message of `COMMIT` as node-postgres sends it (PostgreSQL protocol 3). */
const COMMIT_QUERY = Buffer.concat([
  Buffer.from('Q'),
  Buffer.from([0, 0, 0, 11]),
  Buffer.from('COMMIT\0'),
]);

type Cut = 'after-answer' | 'before-commit' | 'never';

/**
 * Relays connections to PostgreSQL; the first COMMIT seen while `cut` is set ends its connection
 * (both sides) at that point. `goAway` ends every connection and turns new ones away, as a
 * database gone would.
 */
class Relay {
  cut: Cut = 'never';
  refuse = false;
  cuts = 0;
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();

  constructor(target: { host: string; port: number }) {
    this.#server = createServer((client) => {
      if (this.refuse) return client.destroy();
      const upstream = connect(target);
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.on('close', () => this.#sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      let committing = false;
      const end = (): void => {
        client.destroy();
        upstream.destroy();
      };
      client.on('data', (chunk: Buffer) => {
        if (this.cut !== 'never' && chunk.includes(COMMIT_QUERY)) {
          this.cuts++;
          if (this.cut === 'before-commit') return end();
          committing = true;
        }
        upstream.write(chunk);
      });
      upstream.on('data', (chunk: Buffer) => {
        // The whole answer to COMMIT ends with ReadyForQuery ('Z'): swallowed, then cut.
        if (committing) return end();
        client.write(chunk);
      });
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return (this.#server.address() as { port: number }).port;
  }

  goAway(): void {
    this.refuse = true;
    for (const socket of this.#sockets) socket.destroy();
  }

  close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}

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

const outcome = (insert: Promise<{ seq: number }>): Promise<number | CardsError | string> =>
  insert.then(
    (entry) => entry.seq,
    (err: unknown) => (err instanceof CardsError ? err : `not a CardsError: ${String(err)}`),
  );

const closing: (() => Promise<void>)[] = [];
after(async () => {
  for (const close of closing) await close().catch(() => undefined);
});

async function relayed(
  statementTimeoutMs = 2000,
): Promise<{ store: PostgresStore; relay: Relay; url: string }> {
  const url = await freshStoreUrl();
  const direct = new URL(url);
  const relay = new Relay({ host: direct.hostname, port: Number(direct.port) });
  const through = new URL(url);
  through.port = String(await relay.listen());
  closing.push(() => relay.close());
  const store = await openPostgresStore({
    url: through.toString(),
    poolSize: 2,
    statementTimeoutMs,
  });
  closing.push(() => store.close());
  return { store, relay, url };
}

const storedIds = async (url: string): Promise<string[]> =>
  (await sql<{ id: string }>(url, 'SELECT id FROM cards ORDER BY seq')).map((row) => row.id);

describe('postgres: a COMMIT whose answer is lost', () => {
  test('committed but unanswered: the card is acknowledged, as it is stored', async () => {
    const { store, relay, url } = await relayed();
    assert.equal(await outcome(store.insert(record('warm'))), 0);
    relay.cut = 'after-answer';
    const card = record('alice');
    const result = await outcome(store.insert(card));
    assert.equal(relay.cuts, 1, 'the relay cut the connection at the COMMIT');
    assert.equal(result, 1, 'acknowledged at the seq it was stored at');
    assert.deepEqual((await storedIds(url)).slice(1), [card.id]);
    relay.cut = 'never';
    assert.equal((await store.getCard(card.id))?.id, card.id);
    assert.equal(await outcome(store.insert(record('bob'))), 2, 'seq stays dense');
  });

  test('cut before PostgreSQL saw the COMMIT: 503 and nothing stored', async () => {
    const { store, relay, url } = await relayed();
    relay.cut = 'before-commit';
    const card = record('carol');
    const result = await outcome(store.insert(card));
    assert.equal(relay.cuts, 1);
    assert.ok(result instanceof CardsError, String(result));
    assert.equal(result.code, 'STORE_UNAVAILABLE');
    assert.equal(result.status, 503);
    assert.deepEqual(await storedIds(url), []);
    relay.cut = 'never';
    assert.equal(await outcome(store.insert(card)), 0, 'the same card goes in when sent again');
  });

  test('the database cannot be asked in time: 503 saying the card may be stored', async () => {
    // A 100 ms statement timeout: the store asks for 300 ms, while the relay turns it away.
    const { store, relay, url } = await relayed(100);
    assert.equal(await outcome(store.insert(record('warm'))), 0);
    relay.cut = 'after-answer';
    const pending = outcome(store.insert(record('dave')));
    // Every later connection is turned away, so the store cannot learn what happened.
    await new Promise<void>((resolve) => {
      const wait = (): void => (relay.cuts > 0 ? resolve() : void setTimeout(wait, 1));
      wait();
    });
    relay.goAway();
    const result = await pending;
    assert.ok(result instanceof CardsError, String(result));
    assert.equal(result.code, 'STORE_UNAVAILABLE');
    assert.equal(result.status, 503);
    assert.match(result.message, /whether it was stored is not known/);
    assert.equal(
      (await storedIds(url)).length,
      2,
      'it was stored: the answer did not say otherwise',
    );
  });
});
