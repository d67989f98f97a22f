/**
 * The store contract's listing and reset, against every engine of this package:
 * listCards pages in insertion order with a cursor that survives inserts, listIdentities pages
 * in identity order with a prefix and counts, reset empties the registry (and the JSON store's
 * files, across a reopen).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { JsonStore } from '../../src/store/json/json-store.js';
import { MemoryStore } from '../../src/store/memory/memory-store.js';
import type { CardStore, StoredCard } from '../../src/store/store.js';

const root = mkdtempSync(join(tmpdir(), 'cards-listing-test-'));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

const hex = (i: number): string => i.toString(16).padStart(64, '0');
const card = (i: number, identity: string, extra: Partial<StoredCard> = {}): StoredCard => ({
  id: hex(i),
  identity,
  content_snapshot: Buffer.from(`{"identity":"${identity}","n":${i}}`).toString('base64'),
  signatures: [{ signer: 'self', signature: 'c2ln' }],
  ...extra,
});

const engines: Record<string, () => Promise<CardStore>> = {
  memory: async () => new MemoryStore(),
  json: () => JsonStore.open({ path: join(root, `s${n++}`, 'cards.json') }),
};

for (const [engine, open] of Object.entries(engines))
  describe(`store listing and reset: ${engine}`, () => {
    test('listCards: insertion order, seq cursor, stable while cards are added', async () => {
      const store = await open();
      try {
        for (let i = 1; i <= 5; i++) await store.insert(card(i, `id-${6 - i}`));
        const first = await store.listCards(undefined, 2);
        assert.deepEqual(
          first.map((e) => [e.seq, e.id]),
          [
            [0, hex(1)],
            [1, hex(2)],
          ],
        );
        const cursor = first.at(-1)?.seq;
        await store.insert(card(6, 'id-0'));
        const rest = await store.listCards(cursor, 100);
        assert.deepEqual(
          rest.map((e) => e.id),
          [3, 4, 5, 6].map(hex),
        );
        assert.deepEqual(await store.listCards(rest.at(-1)?.seq, 10), []);
        assert.deepEqual(await store.listCards(1000, 10), []);
        assert.deepEqual(await store.listCards(undefined, 0), []);
      } finally {
        await store.close();
      }
    });

    test('listIdentities: sorted, prefix, cursor, counts of cards and chains', async () => {
      const store = await open();
      try {
        await store.insert(card(1, 'bob'));
        await store.insert(card(2, 'alice'));
        await store.insert(card(3, 'alice', { previous_card_id: hex(2) }));
        await store.insert(card(4, 'alice'));
        await store.insert(card(5, 'alice', { previous_card_id: hex(4), revoking: true }));
        await store.insert(card(6, 'alina'));
        await store.insert(card(7, 'carol'));
        const all = await store.listIdentities({ limit: 10 });
        assert.deepEqual(
          all.map((s) => s.identity),
          ['alice', 'alina', 'bob', 'carol'],
        );
        assert.deepEqual(all[0], { identity: 'alice', cards: 4, liveChains: 1, revokedChains: 1 });
        assert.deepEqual(all[2], { identity: 'bob', cards: 1, liveChains: 1, revokedChains: 0 });
        const page = await store.listIdentities({ limit: 2 });
        const next = await store.listIdentities({ limit: 2, after: page.at(-1)?.identity });
        assert.deepEqual(
          [...page, ...next].map((s) => s.identity),
          ['alice', 'alina', 'bob', 'carol'],
        );
        const al = await store.listIdentities({ prefix: 'al', limit: 10 });
        assert.deepEqual(
          al.map((s) => s.identity),
          ['alice', 'alina'],
        );
        const after = await store.listIdentities({ prefix: 'al', after: 'alice', limit: 10 });
        assert.deepEqual(
          after.map((s) => s.identity),
          ['alina'],
        );
        assert.deepEqual(await store.listIdentities({ prefix: 'z', limit: 10 }), []);
        // A cursor before the prefix starts at the prefix; a new identity lands in its place.
        await store.insert(card(8, 'alex'));
        const again = await store.listIdentities({ prefix: 'al', after: 'a', limit: 10 });
        assert.deepEqual(
          again.map((s) => s.identity),
          ['alex', 'alice', 'alina'],
        );
        // New identities at both ends and in between; a new chain of a listed identity is no
        // new identity.
        for (const [i, name] of [
          [9, 'zed'],
          [10, 'aaron'],
          [11, 'bob'],
          [12, 'bo'],
        ] as const)
          await store.insert(card(i, name));
        const whole = await store.listIdentities({ limit: 20 });
        assert.deepEqual(
          whole.map((s) => s.identity),
          ['aaron', 'alex', 'alice', 'alina', 'bo', 'bob', 'carol', 'zed'],
        );
        assert.equal(whole[5]?.liveChains, 2);
      } finally {
        await store.close();
      }
    });

    test('reset empties the registry; seq starts again; inserts during a reset land after it', async () => {
      const store = await open();
      try {
        for (let i = 1; i <= 3; i++) await store.insert(card(i, `u${i}`));
        const racing = store.insert(card(4, 'u4'));
        await store.reset();
        await racing.catch(() => undefined);
        const during = [store.reset(), store.insert(card(9, 'u9'))];
        await Promise.all(during);
        assert.equal(await store.count(), 1);
        assert.equal(await store.getCard(hex(1)), undefined);
        const [only] = await store.listCards(undefined, 10);
        assert.equal(only?.id, hex(9));
        assert.equal(only?.seq, 0);
        assert.deepEqual(
          (await store.listIdentities({ limit: 10 })).map((s) => s.identity),
          ['u9'],
        );
        // The old ids are free again.
        await store.insert(card(1, 'u1'));
        assert.equal(await store.count(), 2);
      } finally {
        await store.close();
      }
    });
  });

test('JSON store: a reset is durable across a reopen', async () => {
  const path = join(root, 'durable', 'cards.json');
  let store = await JsonStore.open({ path });
  for (let i = 1; i <= 4; i++) await store.insert(card(i, `u${i}`));
  await store.close();
  store = await JsonStore.open({ path });
  await store.insert(card(5, 'u5')); // one card in the journal, four in the file
  await store.reset();
  await store.insert(card(6, 'u6'));
  await store.close();
  store = await JsonStore.open({ path });
  try {
    assert.deepEqual(
      (await store.listCards(undefined, 10)).map((e) => e.id),
      [hex(6)],
    );
  } finally {
    await store.close();
  }
});

test('listing costs the page, not the store (100,000 cards)', async () => {
  const cards = Array.from({ length: 100_000 }, (_, i) => card(i + 1, `user-${i}`));
  const store = new MemoryStore({ cards });
  const started = performance.now();
  for (let i = 0; i < 1000; i++) {
    await store.listCards(i * 97, 100);
    await store.listIdentities({ after: `user-${i * 97}`, limit: 100 });
  }
  const ms = performance.now() - started;
  assert.ok(ms < 2000, `1000 pages of each took ${ms.toFixed(0)} ms`);
  await store.close();
});
