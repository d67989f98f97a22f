/**
 * The engine contract suite: what every engine (src/store/engine.ts) must answer, written once
 * and run against each (memory.test.ts, json.test.ts, postgres.test.ts, and a throwaway engine
 * registered from outside in registered.test.ts): its card store, the secrets it keeps, the log's
 * tiles and checkpoint, bulk import, its description, and what survives close and reopen — all
 * of it on a durable engine, nothing on one that says it forgets. Cards here are records, not
 * signed cards: a store never checks signatures (the registry does), so a record is enough.
 */
import { cardIdOf } from '../../src/core/card-id.js';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { CARD_STATES } from '../../src/core/chain.js';
import { CardsError } from '../../src/core/errors.js';
import { ImportError, type Engine } from '../../src/store/engine.js';
import { serializeCard } from '../../src/store/record.js';
import type { CardStore, StoredCard } from '../../src/store/store.js';
import { allCards, type EngineFactory } from './engines.js';
import { codeOf } from '../helpers/code-of.js';

let next = 0;
const hex = (): string => (++next).toString(16).padStart(8, '0').repeat(8);

/**
 * A record for `identity`, optionally naming `previous`; `revoking` for a revoking card. Its id
 * is its snapshot's real id (stores recheck ids read from disk).
 */
function record(identity: string, previous?: StoredCard, revoking = false): StoredCard {
  const snapshot = Buffer.from(`{"identity":${JSON.stringify(identity)},"n":"${hex()}"}`);
  return {
    id: cardIdOf(snapshot),
    identity,
    ...(previous && { previous_card_id: previous.id }),
    ...(revoking && { revoking: true as const }),
    content_snapshot: snapshot.toString('base64'),
    signatures: revoking
      ? [{ signer: 'service', signature: 'c2VydmljZQ==' }]
      : [
          { signer: 'self', signature: 'c2VsZg==', snapshot: 'eA==' },
          { signer: 'service', signature: 'c2VydmljZQ==' },
        ],
  };
}

async function* each<T>(items: readonly T[]): AsyncGenerator<T> {
  yield* items;
}

export function describeEngineContract(factory: EngineFactory): void {
  describe(`engine contract: ${factory.name}`, () => {
    const opened: Engine[] = [];
    const open = async (place: string): Promise<Engine> => {
      const engine = await factory.open(place);
      opened.push(engine);
      return engine;
    };
    const fresh = async (): Promise<{ store: CardStore; place: string; engine: Engine }> => {
      const place = await factory.place();
      const engine = await open(place);
      return { store: engine.cards, place, engine };
    };

    test('queries: a card, its chain, the chains of identities; states from core/chain', async () => {
      const { store } = await fresh();
      assert.equal(await store.count(), 0);
      assert.equal(await store.getCard('f'.repeat(64)), undefined);
      assert.equal(await store.lastOfChain('f'.repeat(64)), undefined);
      assert.deepEqual(await store.chainsOf(['nobody']), []);
      const a1 = record('alice');
      const b1 = record('bob');
      const a2 = record('alice', a1);
      const c1 = record('alice');
      const a3 = record('alice', a2);
      const c2 = record('alice', c1, true);
      for (const card of [a1, b1, a2, c1, a3, c2]) await store.insert(card);
      const states = await Promise.all([a1, a2, a3, c1, c2, b1].map((c) => store.getCard(c.id)));
      assert.deepEqual(
        states.map((entry) => entry?.state),
        ['superseded', 'superseded', 'active', 'revoked', 'revocation', 'active'],
      );
      for (const state of states.map((entry) => entry?.state))
        assert.ok(CARD_STATES.includes(state as never));
      const a1Entry = states[0];
      assert.equal(a1Entry?.successor, a2.id);
      assert.equal(a1Entry?.superseded, true);
      assert.equal(a1Entry?.revokedBy, undefined);
      assert.equal(states[3]?.revokedBy, c2.id);
      assert.equal(states[3]?.successor, c2.id);
      assert.equal(states[2]?.superseded, false);
      assert.equal((await store.lastOfChain(a1.id))?.id, a3.id);
      assert.equal((await store.lastOfChain(c1.id))?.id, c2.id);
      // The wire object is the stored card's content_snapshot and signatures, as JSON text.
      assert.deepEqual(JSON.parse(a1Entry?.json ?? ''), {
        content_snapshot: a1.content_snapshot,
        signatures: a1.signatures,
      });
      assert.equal(serializeCard(a1Entry?.card as StoredCard), serializeCard(a1));
      const chains = await store.chainsOf(['bob', 'alice', 'bob', 'nobody']);
      assert.deepEqual(
        chains.map((chain) => [chain.identity, chain.revoked, chain.cards.map((c) => c.id)]),
        [
          ['bob', false, [b1.id]],
          ['alice', false, [a1.id, a2.id, a3.id]],
          ['alice', true, [c1.id, c2.id]],
        ],
      );
      assert.deepEqual(
        chains[1]?.cards.map((c) => c.state),
        ['superseded', 'superseded', 'active'],
      );
      assert.deepEqual(
        chains[2]?.cards.map((c) => c.state),
        ['revoked', 'revocation'],
      );
      assert.equal(await store.count(), 6);
    });

    test('cardsWithIdPrefix: ids starting with the prefix, in id order, paged by the last id', async () => {
      const { store, engine } = await fresh();
      const cards: StoredCard[] = [];
      for (let i = 0; i < 40; i++) cards.push(record(`p${i % 7}`, undefined));
      for (const card of cards) await store.insert(card);
      const ids = cards.map((card) => card.id).sort();
      const first = ids[0] as string;
      // A whole id, a short one (the CLI's 8 digits), and one digit shared by several cards.
      for (const prefix of [first, first.slice(0, 8)]) {
        const found = await store.cardsWithIdPrefix({ prefix, limit: 10 });
        assert.deepEqual(
          found.map((entry) => entry.id),
          ids.filter((id) => id.startsWith(prefix)),
        );
        assert.equal(found[0]?.card.identity, cards.find((c) => c.id === first)?.identity);
      }
      const digit = first.slice(0, 1);
      const all = ids.filter((id) => id.startsWith(digit));
      const page = await store.cardsWithIdPrefix({ prefix: digit, limit: 2 });
      assert.deepEqual(
        page.map((entry) => entry.id),
        all.slice(0, 2),
      );
      const rest = await store.cardsWithIdPrefix({
        prefix: digit,
        after: page.at(-1)?.id,
        limit: 99,
      });
      assert.deepEqual(
        rest.map((entry) => entry.id),
        all.slice(2),
      );
      // The digit after the last one any id can hold, and ids added after a listing.
      assert.deepEqual(await store.cardsWithIdPrefix({ prefix: 'f'.repeat(64), limit: 5 }), []);
      const later = record('p-late');
      await store.insert(later);
      assert.deepEqual(
        (await store.cardsWithIdPrefix({ prefix: later.id.slice(0, 12), limit: 5 })).map(
          (e) => e.id,
        ),
        [later.id],
      );
      await engine.cards.reset();
      assert.deepEqual(await store.cardsWithIdPrefix({ prefix: digit, limit: 5 }), []);
    });

    test('listIdentities: code-point order (UTF-8 byte order) alike on every engine, paged', async () => {
      const { store } = await fresh();
      // U+FF21 and U+E000 sort below a character above U+FFFF by code point, above it by
      // UTF-16 code unit (a surrogate pair starts 0xD83D): the order must not depend on the engine.
      const names = ['\u{1F600}', '\uFF21', 'a', '\u00E9', '\uE000', 'a\u{1F600}', 'a\uFF21', 'B'];
      for (const name of names) await store.insert(record(name));
      const byBytes = [...names].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
      const all = await store.listIdentities({ limit: 100 });
      assert.deepEqual(
        all.map((s) => s.identity),
        byBytes,
      );
      const paged: string[] = [];
      for (let after: string | undefined; ;) {
        const page = await store.listIdentities({
          limit: 3,
          ...(after !== undefined && { after }),
        });
        paged.push(...page.map((s) => s.identity));
        if (page.length < 3) break;
        after = page.at(-1)?.identity;
      }
      assert.deepEqual(paged, byBytes, 'pages follow the same order');
      assert.deepEqual(
        (await store.listIdentities({ prefix: 'a', limit: 100 })).map((s) => s.identity),
        byBytes.filter((n) => n.startsWith('a')),
      );
    });

    test('revisionOf: changes with every card the identity gains, a reset, never repeats', async () => {
      const { store, engine } = await fresh();
      if (engine.tiles.shared) {
        // Written by other servers too: no server can tell when an identity changed.
        assert.equal(store.revisionOf, undefined);
        return;
      }
      assert.equal(typeof store.revisionOf, 'function', 'an engine no other server writes');
      const revision = (identity: string): number | undefined => store.revisionOf?.(identity);
      assert.equal(revision('alice'), undefined);
      const a1 = record('alice');
      await store.insert(a1);
      const seen = [revision('alice')];
      await store.insert(record('bob'));
      assert.equal(revision('alice'), seen[0], 'another identity leaves it alone');
      const a2 = record('alice', a1); // a replacement
      await store.insert(a2);
      seen.push(revision('alice'));
      await store.insert(record('alice')); // a second chain
      seen.push(revision('alice'));
      await store.insert(record('alice', a2, true)); // a revocation of the first chain
      seen.push(revision('alice'));
      await assert.rejects(store.insert(record('alice', a1))); // refused: nothing changes
      assert.equal(revision('alice'), seen.at(-1));
      await store.reset();
      assert.equal(revision('alice'), undefined);
      await store.insert(a1);
      seen.push(revision('alice'));
      for (const r of seen) assert.equal(typeof r, 'number');
      assert.equal(new Set(seen).size, seen.length, `revisions repeat: ${seen.join(' ')}`);
    });

    test('sequence numbers: 0, 1, 2… in insertion order; refusals take none', async () => {
      const { store } = await fresh();
      const a = record('alice');
      const seqs = [(await store.insert(a)).seq];
      await assert.rejects(store.insert(a));
      seqs.push((await store.insert(record('bob'))).seq);
      seqs.push((await store.insert(record('alice', a))).seq);
      assert.deepEqual(seqs, [0, 1, 2]);
      assert.equal((await store.getCard(a.id))?.seq, 0);
      assert.deepEqual(
        (await allCards(store)).map((c) => c.id),
        (await allCards(store)).map((c) => c.id),
      );
      assert.equal((await store.scan(1, 10)).length, 2);
      assert.equal((await store.scan(3, 10)).length, 0);
    });

    test('each conflict code, with the JSON store’s messages', async () => {
      const { store } = await fresh();
      const a = record('alice');
      await store.insert(a);
      const dup = await store.insert(a).catch((err: CardsError) => err);
      assert.ok(dup instanceof CardsError);
      assert.equal(dup.code, 'SNAPSHOT_NOT_UNIQUE');
      assert.match(dup.message, new RegExp(`card ${a.id} exists`));
      const b = record('alice', a);
      await store.insert(b);
      const superseded = await store.insert(record('alice', a)).catch((err: CardsError) => err);
      assert.ok(superseded instanceof CardsError);
      assert.equal(superseded.code, 'PREVIOUS_SUPERSEDED');
      assert.match(superseded.message, new RegExp(`the last card of its chain is ${b.id}`));
      assert.equal(
        await codeOf(() => store.insert(record('bob', b))),
        'PREVIOUS_IDENTITY_MISMATCH',
      );
      assert.equal(
        await codeOf(() => store.insert(record('alice', record('alice')))),
        'PREVIOUS_NOT_FOUND',
      );
      const revoking = record('alice', b, true);
      await store.insert(revoking);
      // Naming a card whose successor is the revoking card, or the revoking card itself: 40310.
      assert.equal(await codeOf(() => store.insert(record('alice', b))), 'CHAIN_REVOKED');
      assert.equal(await codeOf(() => store.insert(record('alice', revoking))), 'CHAIN_REVOKED');
      // Revoking any card of a revoked chain: 40310; replacing an older one: 40037.
      assert.equal(await codeOf(() => store.insert(record('alice', a, true))), 'CHAIN_REVOKED');
      assert.equal(await codeOf(() => store.insert(record('alice', a))), 'PREVIOUS_SUPERSEDED');
      assert.equal(await store.count(), 3);
    });

    test('racing inserts: exactly one winner, the losers get 40027 / 40037 / 40310', async () => {
      const { store } = await fresh();
      const a = record('alice');
      const same = await Promise.all(
        Array.from({ length: 12 }, () => codeOf(() => store.insert(a))),
      );
      assert.equal(same.filter((c) => c === 'none').length, 1);
      assert.equal(same.filter((c) => c === 'SNAPSHOT_NOT_UNIQUE').length, 11);
      const replacements = Array.from({ length: 12 }, () => record('alice', a));
      const replaced = await Promise.all(replacements.map((c) => codeOf(() => store.insert(c))));
      assert.equal(replaced.filter((c) => c === 'none').length, 1);
      assert.equal(replaced.filter((c) => c === 'PREVIOUS_SUPERSEDED').length, 11);
      const winner = replacements[replaced.indexOf('none')] as StoredCard;
      const revocations = Array.from({ length: 6 }, () => record('alice', winner, true));
      const contenders = [
        ...revocations,
        ...Array.from({ length: 6 }, () => record('alice', winner)),
      ];
      const outcome = await Promise.all(contenders.map((c) => codeOf(() => store.insert(c))));
      assert.equal(outcome.filter((c) => c === 'none').length, 1);
      const won = outcome.indexOf('none');
      const expected = won < 6 ? 'CHAIN_REVOKED' : 'PREVIOUS_SUPERSEDED';
      assert.deepEqual(
        outcome.filter((_, i) => i !== won),
        Array(11).fill(expected),
        `winner #${won}`,
      );
      assert.equal(await store.count(), 3);
      const seqs = (await allCards(store)).map((card) => card.id);
      assert.equal(new Set(seqs).size, 3);
    });

    test('a failed write leaves nothing; reopen keeps everything, in order', async () => {
      const { store, place, engine } = await fresh();
      const cards: StoredCard[] = [];
      const a = record('alice');
      for (const card of [a, record('bob'), record('alice', a)]) {
        await store.insert(card);
        cards.push(card);
      }
      await codeOf(() => store.insert(a));
      await codeOf(() => store.insert(record('alice', a)));
      const revoking = record('alice', cards[2], true);
      await store.insert(revoking);
      cards.push(revoking);
      const kept = async (again: CardStore): Promise<void> => {
        assert.equal(await again.count(), 4);
        assert.deepEqual(
          (await allCards(again)).map(serializeCard),
          cards.map(serializeCard),
          'byte-identical records, insertion order',
        );
        assert.equal((await again.getCard(a.id))?.state, 'revoked');
      };
      // An engine that forgets holds it all until it closes, and nothing after.
      if (!factory.durable) {
        await kept(store);
        assert.equal((await store.insert(record('carol'))).seq, 4);
      }
      await engine.close();
      const reopened = await open(place);
      const again = reopened.cards;
      if (!factory.durable) {
        assert.equal(await again.count(), 0, 'an engine that says it forgets, forgets');
        return;
      }
      await kept(again);
      assert.equal((await again.insert(record('carol'))).seq, 4);
      await reopened.close();
      // Closed: an insert is refused and nothing is stored.
      assert.equal(await codeOf(() => again.insert(record('dave'))), 'STORE_UNAVAILABLE');
      const third = await open(place);
      assert.equal(await third.cards.count(), 5);
    });

    test('secrets: kept or made, one winner when two make at once, kept across reopen', async () => {
      const { engine, place } = await fresh();
      let made = 0;
      const make = (value: string) => (): string => {
        made++;
        return `  ${value}\n`;
      };
      const first = await engine.secrets.keep('service-key', make('key-one'));
      assert.equal(first.created, true);
      assert.equal(first.value, 'key-one', 'kept without surrounding white space');
      assert.ok(first.where.length > 0);
      const again = await engine.secrets.keep('service-key', make('key-two'));
      assert.deepEqual([again.created, again.value, made], [false, 'key-one', 1]);
      const racing = await Promise.all([
        engine.secrets.keep('admin-token', make('token-a')),
        engine.secrets.keep('admin-token', make('token-b')),
      ]);
      assert.equal(racing[0].value, racing[1].value, 'both get the one kept');
      assert.equal(racing.filter((r) => r.created).length, 1, 'one of them made it');
      assert.equal((await engine.secrets.keep('app-key', make('app'))).value, 'app');
      if (first.path !== undefined) assert.ok(first.where.includes(first.path), first.where);
      await engine.close();
      const reopened = await open(place);
      const after = await reopened.secrets.keep('service-key', make('key-three'));
      if (factory.durable) {
        assert.deepEqual([after.created, after.value], [false, 'key-one'], 'kept across reopen');
        assert.equal(
          (await reopened.secrets.keep('admin-token', make('x'))).value,
          racing[0].value,
        );
      } else assert.deepEqual([after.created, after.value], [true, 'key-three'], 'forgotten');
      await reopened.close();
    });

    test('log tiles and checkpoint: written in one update, kept across reopen', async () => {
      const { engine, place } = await fresh();
      const full = { level: 0, index: 0, width: 256 } as const;
      const bytes = new Uint8Array(256 * 32).map((_, i) => i % 251);
      const bundle = { level: 'entries', index: 1, width: 3 } as const;
      assert.equal(await engine.tiles.readCheckpoint(), undefined, 'a new log');
      assert.equal(await engine.tiles.readTile(full), undefined);
      await engine.tiles.update(async (tx) => {
        assert.equal(tx.checkpoint, undefined);
        assert.equal(await tx.lastSigned(), undefined, 'nothing signed yet');
        await tx.write([
          { tile: full, data: bytes },
          { tile: bundle, data: new Uint8Array([0, 1, 7, 0, 1, 8, 0, 1, 9]) },
        ]);
        await tx.writeCheckpoint('origin\n1\nroot\n', 0, 'other\n1\nroot\norigin\n1\nroot\n');
      });
      const partial = await engine.tiles.readTile({ level: 0, index: 0, width: 2 });
      assert.deepEqual(partial, bytes.subarray(0, 64), 'a partial tile from its full one');
      assert.equal(await engine.tiles.replaceCheckpoint('other', 'x'), false, 'moved meanwhile');
      assert.equal(await engine.tiles.replaceCheckpoint('origin\n1\nroot\n', 'cosigned\n'), true);
      if (engine.tiles.directory !== undefined) {
        // Published as static files at their tlog-tiles paths.
        assert.equal(
          readFileSync(join(engine.tiles.directory, 'checkpoint'), 'utf8'),
          'cosigned\n',
        );
        assert.deepEqual(
          new Uint8Array(readFileSync(join(engine.tiles.directory, 'tile/0/000'))),
          bytes,
        );
      }
      await engine.close();
      const reopened = await open(place);
      if (factory.durable) {
        assert.equal(await reopened.tiles.readCheckpoint(), 'cosigned\n');
        assert.deepEqual(await reopened.tiles.readTile(full), bytes);
        assert.deepEqual(
          await reopened.tiles.readTile(bundle),
          new Uint8Array([0, 1, 7, 0, 1, 8, 0, 1, 9]),
        );
        await reopened.tiles.update(async (tx) => {
          assert.equal(tx.checkpoint, 'cosigned\n');
          // The record of what the key signed, as the writer gave it (cosignatures are not
          // signing), kept.
          assert.equal(await tx.lastSigned(), 'other\n1\nroot\norigin\n1\nroot\n');
          await tx.clear();
        });
        assert.equal(await reopened.tiles.readTile(full), undefined, 'clear removes the tiles');
        await reopened.tiles.update(async (tx) => {
          assert.equal(
            await tx.lastSigned(),
            'other\n1\nroot\norigin\n1\nroot\n',
            'clear keeps the record',
          );
        });
      } else {
        assert.equal(await reopened.tiles.readCheckpoint(), undefined, 'forgotten');
        assert.equal(await reopened.tiles.readTile(full), undefined);
      }
      await reopened.close();
    });

    test('bulk import: in order through the chain rules; a refusal names its card', async () => {
      const { engine } = await fresh();
      const a = record('alice');
      const chain = [a, record('bob'), record('alice', a)];
      chain.push(record('alice', chain[2], true));
      const many = Array.from({ length: 1200 }, (_, i) => record(`user-${i % 50}`));
      assert.equal(await engine.importCards(each([...chain, ...many])), chain.length + 1200);
      assert.deepEqual(
        (await allCards(engine.cards)).map(serializeCard),
        [...chain, ...many].map(serializeCard),
        'every card, in the order given',
      );
      assert.equal((await engine.cards.getCard(a.id))?.state, 'revoked');
      const orphan = record('carol', record('carol'));
      const refused = await engine.importCards(each([record('dave'), orphan])).catch((e) => e);
      assert.ok(refused instanceof ImportError, String(refused));
      assert.equal(refused.index, 1);
      assert.equal(refused.card.id, orphan.id);
      assert.equal((refused.cause as CardsError).code, 'PREVIOUS_NOT_FOUND');
    });

    test('describes itself in one line, a password never shown', async () => {
      const { engine, place } = await fresh();
      assert.equal(typeof engine.name, 'string');
      assert.equal(
        engine.durable,
        factory.durable,
        factory.durable ? 'a durable engine says so' : 'an engine that forgets says so',
      );
      assert.match(engine.description, /^[^\n]+$/);
      const password = /^[a-z]+:\/\//.test(place) ? new URL(place).password : '';
      if (password) assert.ok(!engine.description.includes(password), engine.description);
    });

    test('close', async () => {
      for (const engine of opened.splice(0)) await engine.close().catch(() => undefined);
    });
  });
}
