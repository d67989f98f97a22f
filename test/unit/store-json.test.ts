import assert from 'node:assert/strict';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { JsonStore } from '../../src/store/json/json-store.js';
import { storePaths } from '../../src/store/json/paths.js';
import type { StoredCard } from '../../src/store/store.js';
import { serializeCard } from '../../src/store/record.js';
import { StoredLine } from '../../src/store/stored-line.js';
import { codeOf } from '../helpers/code-of.js';

const root = mkdtempSync(join(tmpdir(), 'cards-store-test-'));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const newDb = (): string => join(root, `s${n++}`, 'cards.json');

const hex = (i: number): string => i.toString(16).padStart(64, '0');
const card = (i: number, extra: Partial<StoredCard> = {}): StoredCard => ({
  id: hex(i),
  identity: `user-${i}`,
  content_snapshot: Buffer.from(`{"identity":"user-${i}"}`).toString('base64'),
  signatures: [{ signer: 'self', signature: 'c2ln' }],
  ...extra,
});
const line = (c: StoredCard): string => `${JSON.stringify(c)}\n`;
const storeText = (cards: StoredCard[], version = 1): string =>
  JSON.stringify({ format: 'cards-store', version, cards });
/** The one-card-per-line format the store writes, with `lines` between its header and footer. */
const lineFormat = (lines: string[]): string =>
  `{\n"format": "cards-store",\n"version": 1,\n"cards": [\n${lines.join('\n')}\n]\n}\n`;

describe('JSON store: files, durability, replay', () => {
  test('a new store: readable file, journal; close folds everything into the file', async () => {
    const db = newDb();
    const paths = storePaths(db);
    const store = await JsonStore.open({ path: db });
    assert.deepEqual(JSON.parse(readFileSync(db, 'utf8')), {
      format: 'cards-store',
      version: 1,
      cards: [],
    });
    assert.ok(existsSync(paths.journal));
    await store.insert(card(1));
    await store.insert(card(2, { identity: 'user-1', previous_card_id: hex(1) }));
    assert.equal(
      readFileSync(paths.journal, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('{"id"')).length,
      2,
      'two lines, acknowledged',
    );
    assert.equal(
      JSON.parse(readFileSync(db, 'utf8')).cards.length,
      0,
      'the file is not rewritten per card',
    );
    await store.close();
    const text = readFileSync(db, 'utf8');
    assert.deepEqual(JSON.parse(text).cards, [
      card(1),
      card(2, { identity: 'user-1', previous_card_id: hex(1) }),
    ]);
    assert.match(text, /^\{"id":"0+1","identity":"user-1"/m, 'one card per line');
    assert.ok(!existsSync(paths.journal));

    const again = await JsonStore.open({ path: db });
    assert.deepEqual(
      again.cards().map(serializeCard),
      [card(1), card(2, { identity: 'user-1', previous_card_id: hex(1) })].map(serializeCard),
    );
    await again.close();
  });

  test('loaded cards: the fast line path and the plain-JSON path read the same cards', async () => {
    const cards = [
      card(1, { identity: 'zoë "the" \\ tab\t 😀' }),
      card(2, { identity: 'zoë "the" \\ tab\t 😀', previous_card_id: hex(1) }),
      card(3, {
        identity: 'bob',
        signatures: [{ signer: 'app', signature: 'c2ln', snapshot: 'eA==' }],
      }),
      card(4, { identity: 'bob', previous_card_id: hex(3), revoking: true, signatures: [] }),
    ];
    const db = newDb();
    const store = await JsonStore.open({ path: db });
    for (const c of cards) await store.insert(c);
    await store.close();
    const fast = await JsonStore.open({ path: db });
    const fastCards = fast.cards();
    assert.ok(
      fastCards.every((c) => c instanceof StoredLine),
      'the file as written takes the fast path',
    );
    await fast.close();
    // The same data as a person might reformat it.
    writeFileSync(db, JSON.stringify({ format: 'cards-store', version: 1, cards }, null, 2));
    const slow = await JsonStore.open({ path: db });
    const slowCards = slow.cards();
    assert.ok(!slowCards.some((c) => c instanceof StoredLine));
    for (const list of [fastCards, slowCards]) {
      assert.deepEqual(list.map(serializeCard), cards.map(serializeCard));
      assert.deepEqual(
        list.map((c) => ({
          id: c.id,
          identity: c.identity,
          previous: c.previous_card_id,
          revoking: c.revoking,
          content_snapshot: c.content_snapshot,
          signatures: c.signatures,
        })),
        cards.map((c) => ({
          id: c.id,
          identity: c.identity,
          previous: c.previous_card_id,
          revoking: c.revoking,
          content_snapshot: c.content_snapshot,
          signatures: c.signatures,
        })),
      );
    }
    for (const [i, c] of fastCards.entries())
      assert.equal(
        c.wireJson,
        JSON.stringify({
          content_snapshot: cards[i]?.content_snapshot,
          signatures: cards[i]?.signatures,
        }),
      );
    await slow.close();
  });

  test('concurrent appends share writes (group commit) and keep their order', async () => {
    const db = newDb();
    const store = await JsonStore.open({ path: db });
    await Promise.all(Array.from({ length: 200 }, (_, i) => store.insert(card(i))));
    const stats = store.stats();
    assert.equal(stats.appends, 200);
    assert.ok(stats.flushes <= 3, `200 appends took ${stats.flushes} flushes`);
    assert.deepEqual(
      store.cards().map((c) => c.id),
      Array.from({ length: 200 }, (_, i) => hex(i)),
    );
    await store.close();
  });

  test('replay after an unclean stop: journal lines added, a torn last line ignored, duplicates skipped', async () => {
    const db = newDb();
    await (await JsonStore.open({ path: db })).close();
    const paths = storePaths(db);
    writeFileSync(db, storeText([card(1)]));
    writeFileSync(
      paths.journal,
      line(card(1)) + line(card(2)) + line(card(3)) + line(card(4)).slice(0, 30),
    );
    const store = await JsonStore.open({ path: db });
    assert.deepEqual(
      store.cards().map((c) => c.id),
      [hex(1), hex(2), hex(3)],
    );
    assert.equal(JSON.parse(readFileSync(db, 'utf8')).cards.length, 3, 'folded in at start-up');
    assert.equal(store.journalBytes, 0);
    await store.close();
  });

  test('background compaction keeps every card, in order, across a crash at any point', async () => {
    const db = newDb();
    const paths = storePaths(db);
    const store = await JsonStore.open({ path: db, compactBytes: 2000 });
    for (let i = 0; i < 60; i++) await store.insert(card(i));
    // Insert until one more background compaction has written the main file, then "crash": copy
    // the files as they are on disk. The journal is cut right after, by the flush loop, without
    // another insert; wait for that cut (a store that never cuts fails here). The journal only
    // grows while inserting, so the cut shows as fewer bytes than its peak.
    const before = store.stats().compactions;
    let peak = store.journalBytes;
    while (store.stats().compactions === before) {
      await store.insert(card(1000 + store.stats().appends));
      peak = Math.max(peak, store.journalBytes);
    }
    const total = store.stats().appends;
    const deadline = Date.now() + 30_000;
    while (store.journalBytes >= peak && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 5));
    assert.ok(store.journalBytes < peak, 'the journal was shortened');
    const copy = join(root, `crash${n++}`);
    const copied = storePaths(join(copy, 'cards.json'));
    rmSync(copy, { recursive: true, force: true });
    mkdirSync(copy);
    copyFileSync(db, copied.store);
    copyFileSync(paths.journal, copied.journal);
    const reopened = await JsonStore.open({ path: copied.store });
    assert.deepEqual(
      reopened.cards().map((c) => c.id),
      store.cards().map((c) => c.id),
    );
    assert.equal(reopened.cards().length, total);
    await reopened.close();
    await store.close();
  });

  test('an empty file (touch cards.json) is a new store', async () => {
    const db = newDb();
    mkdirSync(join(db, '..'), { recursive: true });
    writeFileSync(db, '');
    const store = await JsonStore.open({ path: db });
    assert.equal(store.cards().length, 0);
    await store.close();
  });
});

describe('JSON store: refusals leave the files untouched', () => {
  const corrupt: [string, string][] = [
    ['not JSON', '{"format": "cards-store", "version": 1, "cards": ['],
    ['another format', '{"format":"other","version":1,"cards":[]}'],
    ['a JSON array', '[]'],
    ['a newer version', storeText([], 2)],
    ['a version as a string', '{"format":"cards-store","version":"1","cards":[]}'],
    ['no cards list', '{"format":"cards-store","version":1}'],
    ['a card without id', storeText([{ ...card(1), id: 'x' }])],
    ['a card with an uppercase id', storeText([{ ...card(1), id: hex(1).replace(/0/g, 'A') }])],
    ['a card without signatures', storeText([{ ...card(1), signatures: 'x' as never }])],
    ['a bad revoking flag', storeText([{ ...card(1), revoking: false as never }])],
    ['a revoking card without previous id', storeText([card(1, { revoking: true })])],
    ['a bad previous id', storeText([card(1, { previous_card_id: 'abc' })])],
    [
      'the line format, its last card followed by a comma',
      lineFormat([`${serializeCard(card(1))},`]),
    ],
    [
      'the line format, two cards without a comma between them',
      lineFormat([serializeCard(card(1)), serializeCard(card(2, { identity: 'b' }))]),
    ],
    [
      'the line format, a card with an empty identity',
      lineFormat([serializeCard(card(1, { identity: '' }))]),
    ],
    [
      'the line format, a revoking card without previous id',
      lineFormat([serializeCard(card(1, { revoking: true }))]),
    ],
    [
      'the line format, a card followed by two commas',
      lineFormat([`${serializeCard(card(1))},,`, serializeCard(card(2, { identity: 'b' }))]),
    ],
  ];
  for (const [name, text] of corrupt) {
    test(`STORE_CORRUPT: ${name}`, async () => {
      const db = newDb();
      mkdirSync(join(db, '..'), { recursive: true });
      writeFileSync(db, text);
      let message = '';
      assert.equal(
        await codeOf(() =>
          JsonStore.open({ path: db }).catch((err: Error) => {
            message = err.message;
            throw err;
          }),
        ),
        'STORE_CORRUPT',
      );
      assert.equal(readFileSync(db, 'utf8'), text, 'never overwritten');
      if (name === 'a newer version') assert.match(message, /version 2.*newer/);
    });
  }

  test('STORE_CORRUPT: a complete journal line that does not parse', async () => {
    const db = newDb();
    await (await JsonStore.open({ path: db })).close();
    const journal = storePaths(db).journal;
    const text = `${line(card(1))}{not json}\n${line(card(2))}`;
    writeFileSync(journal, text);
    assert.equal(await codeOf(() => JsonStore.open({ path: db })), 'STORE_CORRUPT');
    assert.equal(readFileSync(journal, 'utf8'), text);
  });
});
