/**
 * The store conformance suite (issue 10, "The store contract"; issue 14): what every engine
 * must answer, written once and run against each (memory.test.ts, json.test.ts,
 * postgres.test.ts). Cards here are records, not signed cards: a store never checks signatures
 * (the registry does), so a record with a made-up id is enough and fast.
 */
import { cardIdOf } from '../../src/core/card-id.js';
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CARD_STATES } from '../../src/core/chain.js';
import { CardsError } from '../../src/core/errors.js';
import { serializeCard } from '../../src/store/record.js';
import type { CardStore, StoredCard } from '../../src/store/store.js';
import { allCards, type EngineFactory } from './engines.js';
import { codeOf } from '../helpers/code-of.js';

let next = 0;
const hex = (): string => (++next).toString(16).padStart(8, '0').repeat(8);

/** A record for `identity`, optionally naming `previous`; `revoking` for a revoking card. */
/** A stored record whose id is its snapshot's real id (stores recheck ids read from disk). */
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

export function describeStoreContract(engineName: string, engine: EngineFactory): void {
  describe(`store contract: ${engineName}`, () => {
    const opened: CardStore[] = [];
    const fresh = async (): Promise<{ store: CardStore; place: string }> => {
      const place = await engine.place();
      const store = await engine.open(place);
      opened.push(store);
      return { store, place };
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

    test('revisionOf: changes with every card the identity gains, a reset, never repeats', async () => {
      const { store } = await fresh();
      if (store.engine === 'postgres') {
        // Written by other servers too: no server can tell when an identity changed.
        assert.equal(store.revisionOf, undefined);
        return;
      }
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
      const { store, place } = await fresh();
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
      await store.close();
      const again = await engine.open(place);
      opened.push(again);
      assert.equal(await again.count(), 4);
      assert.deepEqual(
        (await allCards(again)).map(serializeCard),
        cards.map(serializeCard),
        'byte-identical records, insertion order',
      );
      assert.equal((await again.getCard(a.id))?.state, 'revoked');
      assert.equal((await again.insert(record('carol'))).seq, 4);
      await again.close();
      if (engine.name === 'memory') return;
      // Closed: an insert is refused and nothing is stored.
      assert.equal(await codeOf(() => again.insert(record('dave'))), 'STORE_UNAVAILABLE');
      const third = await engine.open(place);
      opened.push(third);
      assert.equal(await third.count(), 5);
    });

    test('close', async () => {
      for (const store of opened.splice(0)) await store.close().catch(() => undefined);
    });
  });
}
