/**
 * The JSON store's file cards read their lines from the file on first use (file-lines.ts):
 * each card is read from its own place, before and after the file is rewritten by a
 * compaction (its first card line may move), cards handed out stay whole after the store
 * empties or closes, and a line that changed under the server is refused, never served.
 */
import assert from 'node:assert/strict';
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { cardIdOf } from '../../src/core/card-id.js';
import { openJsonStore } from '../../src/store/json/json-store.js';
import type { StoredCard } from '../../src/store/store.js';
import { serializeCard } from '../../src/store/record.js';
import { codeOf } from '../helpers/code-of.js';

const root = mkdtempSync(join(tmpdir(), 'cards-file-lines-test-'));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const newDb = (): string => join(root, `s${n++}`, 'cards.json');

/** A card whose id is its snapshot's (the store checks it before serving the card). */
const snapshotOf = (i: number): Buffer => Buffer.from(`{"identity":"user-${i}"}`);
const hex = (i: number): string => cardIdOf(snapshotOf(i));
const card = (i: number, extra: Partial<StoredCard> = {}): StoredCard => ({
  id: hex(i),
  identity: `user-${i}`,
  content_snapshot: snapshotOf(i).toString('base64'),
  signatures: [{ signer: 'self', signature: 'c2ln' }],
  ...extra,
});
const wire = (c: StoredCard): string =>
  JSON.stringify({ content_snapshot: c.content_snapshot, signatures: c.signatures });

/** Cards of several shapes: a non-ASCII identity, a chain, a revoking card, a second signature. */
const cards = [
  card(1, { identity: 'zoë "the" \\ tab\t 😀' }),
  card(2, { identity: 'zoë "the" \\ tab\t 😀', previous_card_id: hex(1) }),
  card(3, { signatures: [{ signer: 'app', signature: 'c2ln', snapshot: 'eA==' }] }),
  card(4, { identity: 'user-3', previous_card_id: hex(3), revoking: true, signatures: [] }),
  card(5),
];

/** A store file holding `cards` as the store writes it, with `lead` before it (blank lines). */
function writeStore(db: string, lead = ''): void {
  mkdirSync(join(db, '..'), { recursive: true });
  const lines = cards.map(serializeCard).join(',\n');
  writeFileSync(
    db,
    `${lead}{\n"format": "cards-store",\n"version": 1,\n"cards": [\n${lines}\n]\n}\n`,
  );
}

describe('JSON store: file cards read from the file', () => {
  test('each card from its place, before and after a compaction moves the first line', async () => {
    const db = newDb();
    writeStore(db, '\n  \n');
    const store = await openJsonStore({ path: db, compactBytes: 500 });
    // Two cards read now, the others only after the file is rewritten.
    for (const c of cards.slice(0, 2)) assert.equal((await store.getCard(c.id))?.json, wire(c));
    const before = store.stats().compactions;
    for (let i = 100; store.stats().compactions === before; i++) await store.insert(card(i));
    assert.ok(!readFileSync(db, 'utf8').startsWith('\n'), 'the file was rewritten');
    for (const c of cards) {
      const entry = await store.getCard(c.id);
      assert.equal(entry?.json, wire(c));
      assert.deepEqual(entry.card.signatures, c.signatures);
      assert.equal(entry.card.identity, c.identity);
      assert.equal(entry.card.previous_card_id, c.previous_card_id);
      assert.equal(entry.card.revoking, c.revoking);
    }
    assert.deepEqual((await store.chainsOf([cards[0]?.identity as string]))[0]?.cards.length, 2);
    await store.close();
    const again = await openJsonStore({ path: db });
    assert.deepEqual(
      again.cards().slice(0, cards.length).map(serializeCard),
      cards.map(serializeCard),
    );
    await again.close();
  });

  test('cards handed out stay whole after the store is emptied or closed', async () => {
    const db = newDb();
    writeStore(db);
    const store = await openJsonStore({ path: db });
    const got = await store.getCard(hex(5));
    const all = store.cards();
    await store.reset();
    assert.equal(await store.count(), 0);
    assert.equal(got?.card.content_snapshot, cards[4]?.content_snapshot);
    await store.close();
    assert.deepEqual(all.map(serializeCard), cards.map(serializeCard));
  });

  test('a line changed under the server is refused (STORE_CORRUPT), the others served', async () => {
    const db = newDb();
    writeStore(db);
    const store = await openJsonStore({ path: db });
    // Another id, same length, written over the third card's: what a second writer would do.
    const text = readFileSync(db, 'latin1');
    const at = text.indexOf(hex(3));
    const fd = openSync(db, 'r+');
    writeSync(fd, hex(9), at, 'latin1');
    closeSync(fd);
    assert.equal(await codeOf(() => store.getCard(hex(3))), 'STORE_CORRUPT');
    assert.equal((await store.getCard(hex(5)))?.json, wire(cards[4] as StoredCard));
    await store.close().catch(() => undefined);
  });
});
