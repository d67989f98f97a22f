import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { decodeBase64, encodeBase64 } from '../../src/core/encoding.js';
import { CardsError, isWireError, type ErrorCode } from '../../src/core/errors.js';
import { decodeSnapshot } from '../../src/core/snapshot.js';
import { verifyParts } from '../../src/crypto/ed25519.js';
import { generatePrivateKey } from '../../src/crypto/keys.js';
import { signEntry } from '../../src/crypto/sign-card.js';
import { createRegistry, type Registry } from '../../src/registry/registry.js';
import type { MemoryStoreOptions } from '../../src/store/memory/memory-store.js';
import type { CardStore, StoredCard } from '../../src/store/store.js';
import { allCards, openTestStore, testEngine } from '../store/engines.js';
import {
  cardFromFields,
  fieldsFor,
  makeCard,
  makeRevocation,
  snapshotOf,
} from '../http/card-kit.js';
import { codeOf } from '../helpers/code-of.js';

const serviceKey = generatePrivateKey();
const NOW = 1_800_000_000_000;

/** A registry over a new store of the engine under test (CARDS_TEST_ENGINE, default memory). */
async function fresh(
  options: MemoryStoreOptions = {},
): Promise<{ registry: Registry; store: CardStore }> {
  const store = await openTestStore(testEngine(), options);
  return {
    store,
    registry: createRegistry({ store, serviceKey, signer: 'service', clock: () => NOW }),
  };
}

/** A gate that holds every append until opened. */
function gate(): { options: MemoryStoreOptions; open(): void } {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { options: { beforeAppend: () => opened }, open: () => open() };
}

const key = generatePrivateKey();
const sig = (signer: string, extra: Record<string, unknown> = {}) => ({
  signer,
  signature: encodeBase64(new Uint8Array(83)),
  ...extra,
});
const selfOf = (fields: Record<string, unknown>) => cardFromFields(fields, key).raw.signatures;

describe('create: every refusal, in the deployed service order', () => {
  const cases: [string, () => unknown, ErrorCode][] = [
    ['body not an object', () => null, 'BODY_PARSE'],
    ['content_snapshot missing', () => ({ signatures: [] }), 'BODY_PARSE'],
    ['content_snapshot a number', () => ({ content_snapshot: 5, signatures: [] }), 'BODY_PARSE'],
    ['signatures not an array', () => ({ content_snapshot: 'e30=', signatures: {} }), 'BODY_PARSE'],
    ['content_snapshot ""', () => ({ content_snapshot: '', signatures: [] }), 'SNAPSHOT_EMPTY'],
    [
      'snapshot not base64',
      () => ({ content_snapshot: 'no!', signatures: [] }),
      'SNAPSHOT_NOT_BASE64',
    ],
    [
      'snapshot not JSON',
      () => ({ content_snapshot: snapshotOf('nope'), signatures: [] }),
      'SNAPSHOT_NOT_JSON',
    ],
    [
      'snapshot a JSON array',
      () => ({ content_snapshot: snapshotOf([]), signatures: [] }),
      'BODY_PARSE',
    ],
    [
      'public key missing',
      () => cardFromFields(fieldsFor('alice', key, { public_key: undefined })).raw,
      'PUBLIC_KEY_TOO_SHORT',
    ],
    [
      'public key 3 bytes',
      () => cardFromFields(fieldsFor('alice', key, { public_key: 'AAAA' })).raw,
      'PUBLIC_KEY_TOO_SHORT',
    ],
    [
      'public key 5000 bytes',
      () =>
        cardFromFields(fieldsFor('alice', key, { public_key: encodeBase64(new Uint8Array(5000)) }))
          .raw,
      'PUBLIC_KEY_TOO_LONG',
    ],
    [
      'public key not base64',
      () => cardFromFields(fieldsFor('alice', key, { public_key: 'not base64!' })).raw,
      'PUBLIC_KEY_NOT_BASE64',
    ],
    [
      'public key a number',
      () => cardFromFields(fieldsFor('alice', key, { public_key: 5 })).raw,
      'BODY_PARSE',
    ],
    ['identity empty', () => cardFromFields(fieldsFor('', key)).raw, 'IDENTITY_EMPTY'],
    [
      'identity 1025 bytes',
      () => cardFromFields(fieldsFor('a'.repeat(1025), key)).raw,
      'IDENTITY_TOO_LONG',
    ],
    [
      'identity not the token',
      () => cardFromFields(fieldsFor('bob', key)).raw,
      'IDENTITY_MISMATCH',
    ],
    [
      'identity not the token, version bad too',
      () => cardFromFields(fieldsFor('bob', key, { version: '4.0' })).raw,
      'IDENTITY_MISMATCH',
    ],
    [
      'identity not the token, previous id bad too',
      () => cardFromFields(fieldsFor('bob', key, { previous_card_id: 'x' })).raw,
      'IDENTITY_MISMATCH',
    ],
    [
      'identity not the token, created_at a string too',
      () => cardFromFields(fieldsFor('bob', key, { created_at: '1' })).raw,
      'IDENTITY_MISMATCH',
    ],
    [
      'public key bad beats identity',
      () => cardFromFields(fieldsFor('bob', key, { public_key: 'AAAA' })).raw,
      'PUBLIC_KEY_TOO_SHORT',
    ],
    [
      'previous id not 64 hex',
      () => cardFromFields(fieldsFor('alice', key, { previous_card_id: 'abc' })).raw,
      'PREVIOUS_ID_INVALID',
    ],
    [
      'created_at 0',
      () => cardFromFields(fieldsFor('alice', key, { created_at: 0 })).raw,
      'CREATED_AT_INVALID',
    ],
    [
      'created_at a string',
      () => cardFromFields(fieldsFor('alice', key, { created_at: '1700000000' })).raw,
      'BODY_PARSE',
    ],
    [
      'created_at missing',
      () => cardFromFields(fieldsFor('alice', key, { created_at: undefined })).raw,
      'CREATED_AT_INVALID',
    ],
    [
      'version 4.0',
      () => cardFromFields(fieldsFor('alice', key, { version: '4.0' })).raw,
      'VERSION_INVALID',
    ],
    [
      'signatures absent',
      () => ({ content_snapshot: cardFromFields(fieldsFor('alice', key)).raw.content_snapshot }),
      'SIGNATURES_EMPTY',
    ],
    [
      'signatures empty',
      () => ({ ...cardFromFields(fieldsFor('alice', key)).raw, signatures: [] }),
      'SIGNATURES_EMPTY',
    ],
    [
      'nine signatures',
      () => ({
        ...cardFromFields(fieldsFor('alice', key)).raw,
        signatures: Array.from({ length: 9 }, (_, i) => sig(`s${i}`)),
      }),
      'SIGNATURES_TOO_MANY',
    ],
    [
      'signer missing',
      () => ({
        ...cardFromFields(fieldsFor('alice', key)).raw,
        signatures: [{ signature: sig('x').signature }],
      }),
      'SIGNER_INVALID',
    ],
    [
      'signer empty',
      () => ({ ...cardFromFields(fieldsFor('alice', key)).raw, signatures: [sig('')] }),
      'SIGNER_EMPTY',
    ],
    [
      'signer the service',
      () => {
        const f = fieldsFor('alice', key);
        return { ...cardFromFields(f).raw, signatures: [...selfOf(f), sig('service')] };
      },
      'SIGNER_INVALID',
    ],
    [
      'signer 1025 characters',
      () => ({
        ...cardFromFields(fieldsFor('alice', key)).raw,
        signatures: [sig('s'.repeat(1025))],
      }),
      'SIGNER_TOO_LONG',
    ],
    [
      'signature missing',
      () => ({ ...cardFromFields(fieldsFor('alice', key)).raw, signatures: [{ signer: 'self' }] }),
      'SIGNATURE_MISSING',
    ],
    [
      'signature not base64',
      () => ({
        ...cardFromFields(fieldsFor('alice', key)).raw,
        signatures: [{ signer: 'self', signature: 'no!' }],
      }),
      'SIGNATURE_NOT_BASE64',
    ],
    [
      'extra snapshot not base64',
      () => ({
        ...cardFromFields(fieldsFor('alice', key)).raw,
        signatures: [sig('self', { snapshot: 'no!' })],
      }),
      'EXTRA_SNAPSHOT_INVALID',
    ],
    [
      'extra snapshot 1025 bytes',
      () => ({
        ...cardFromFields(fieldsFor('alice', key)).raw,
        signatures: [sig('self', { snapshot: encodeBase64(new Uint8Array(1025)) })],
      }),
      'EXTRA_SNAPSHOT_TOO_LONG',
    ],
    [
      'no self signature',
      () => ({ ...cardFromFields(fieldsFor('alice', key)).raw, signatures: [sig('app')] }),
      'SELF_SIGNATURE_MISSING',
    ],
    [
      'two self signatures',
      () => {
        const f = fieldsFor('alice', key);
        return { ...cardFromFields(f).raw, signatures: [...selfOf(f), ...selfOf(f)] };
      },
      'SELF_SIGNATURE_DUPLICATE',
    ],
    [
      'self signature, key not Ed25519',
      () =>
        cardFromFields(
          fieldsFor('alice', key, { public_key: encodeBase64(new Uint8Array(64).fill(7)) }),
        ).raw,
      'SIGNATURE_INVALID',
    ],
    [
      'self signature by another key',
      () => cardFromFields(fieldsFor('alice', key), generatePrivateKey()).raw,
      'SIGNATURE_INVALID',
    ],
    [
      'self signature bare 64 bytes',
      () => ({
        ...cardFromFields(fieldsFor('alice', key)).raw,
        signatures: [{ signer: 'self', signature: encodeBase64(new Uint8Array(64)) }],
      }),
      'SIGNATURE_INVALID',
    ],
    [
      'previous card unknown',
      () => makeCard('alice', { previousCardId: 'a'.repeat(64) }).raw,
      'PREVIOUS_NOT_FOUND',
    ],
  ];
  for (const [name, body, expected] of cases) {
    test(name, async () => {
      const { registry } = await fresh();
      assert.equal(await codeOf(() => registry.createCard(body(), 'alice')), expected);
      assert.equal(await registry.count(), 0);
    });
  }
});

describe('create and replace: chain rules', () => {
  test('a new card is stored with the request signatures plus the service one', async () => {
    const { registry, store } = await fresh();
    const card = makeCard('alice', {
      others: [{ signer: 'app', snapshot: new Uint8Array([1, 2]) }],
    });
    const entry = await registry.createCard(card.raw, 'alice');
    assert.equal(entry.id, card.id);
    const wire = JSON.parse(entry.json) as {
      content_snapshot: string;
      signatures: { signer: string; signature: string; snapshot?: string }[];
    };
    assert.equal(wire.content_snapshot, card.raw.content_snapshot);
    assert.deepEqual(wire.signatures.slice(0, 2), card.raw.signatures);
    const service = wire.signatures[2];
    assert.equal(service?.signer, 'service');
    assert.equal(service?.snapshot, undefined);
    const bytes = decodeSnapshot(card.raw.content_snapshot, 'card').bytes;
    assert.ok(
      verifyParts(
        serviceKey.publicKey,
        decodeBase64(service?.signature ?? '') as Uint8Array,
        bytes,
      ),
    );
    assert.deepEqual(Object.keys(entry.card), ['id', 'identity', 'content_snapshot', 'signatures']);
    assert.equal((await allCards(store)).length, 1);
  });

  test('replace, supersede, duplicate, identity and revoked-chain refusals', async () => {
    const { registry } = await fresh();
    const a = makeCard('alice');
    await registry.createCard(a.raw, 'alice');
    assert.equal(await codeOf(() => registry.createCard(a.raw, 'alice')), 'SNAPSHOT_NOT_UNIQUE');
    const bob = makeCard('bob');
    await registry.createCard(bob.raw, 'bob');
    assert.equal(
      await codeOf(() =>
        registry.createCard(makeCard('alice', { previousCardId: bob.id }).raw, 'alice'),
      ),
      'PREVIOUS_IDENTITY_MISMATCH',
    );

    const b = makeCard('alice', { previousCardId: a.id });
    await registry.createCard(b.raw, 'alice');
    assert.equal((await registry.getCard(a.id)).superseded, true);
    assert.equal((await registry.getCard(b.id)).superseded, false);
    // The same replacement again: its previous card is superseded before its id is a duplicate.
    assert.equal(await codeOf(() => registry.createCard(b.raw, 'alice')), 'PREVIOUS_SUPERSEDED');
    assert.equal(
      await codeOf(() =>
        registry.createCard(makeCard('alice', { previousCardId: a.id }).raw, 'alice'),
      ),
      'PREVIOUS_SUPERSEDED',
    );

    const r = makeRevocation('alice', b.id);
    await registry.revokeCard(r.raw, 'alice');
    assert.equal(
      await codeOf(() =>
        registry.createCard(makeCard('alice', { previousCardId: b.id }).raw, 'alice'),
      ),
      'CHAIN_REVOKED',
    );
    assert.equal(
      await codeOf(() =>
        registry.createCard(makeCard('alice', { previousCardId: r.id }).raw, 'alice'),
      ),
      'CHAIN_REVOKED',
    );
    assert.equal(
      await codeOf(() =>
        registry.createCard(makeCard('alice', { previousCardId: a.id }).raw, 'alice'),
      ),
      'PREVIOUS_SUPERSEDED',
    );
    // The revoked chain stays readable by id.
    assert.equal((await registry.getCard(a.id)).id, a.id);
    assert.equal((await registry.getCard(r.id)).card.revoking, true);
  });
});

describe('revoke with a revoking card (spec 4.4)', () => {
  const cases: [string, (target: string) => unknown, string, ErrorCode][] = [
    [
      'public key present',
      (t) => cardFromFields(fieldsFor('alice', key, { previous_card_id: t })).raw,
      'alice',
      'PUBLIC_KEY_NOT_EMPTY',
    ],
    [
      'previous id missing',
      () => cardFromFields({ identity: 'alice', version: '5.0', created_at: 5 }).raw,
      'alice',
      'REVOKE_PREVIOUS_MISSING',
    ],
    [
      'previous id empty',
      () =>
        cardFromFields({
          identity: 'alice',
          public_key: '',
          previous_card_id: '',
          version: '5.0',
          created_at: 5,
        }).raw,
      'alice',
      'REVOKE_PREVIOUS_MISSING',
    ],
    ['identity not the token', (t) => makeRevocation('alice', t).raw, 'bob', 'IDENTITY_MISMATCH'],
    [
      'identity not the token, previous missing too',
      () => cardFromFields({ identity: 'bob', version: '5.0', created_at: 5 }).raw,
      'alice',
      'IDENTITY_MISMATCH',
    ],
    [
      'target of another identity',
      (t) => makeRevocation('bob', t).raw,
      'bob',
      'PREVIOUS_IDENTITY_MISMATCH',
    ],
    [
      'target unknown',
      () => makeRevocation('alice', 'b'.repeat(64)).raw,
      'alice',
      'PREVIOUS_NOT_FOUND',
    ],
    [
      'bad signature list shape',
      (t) => ({ ...makeRevocation('alice', t).raw, signatures: 'x' }),
      'alice',
      'BODY_PARSE',
    ],
    [
      'service signer sent',
      (t) => makeRevocation('alice', t, { signatures: [sig('service')] }).raw,
      'alice',
      'SIGNER_INVALID',
    ],
  ];
  for (const [name, body, caller, expected] of cases) {
    test(name, async () => {
      const { registry } = await fresh();
      const target = makeCard('alice');
      await registry.createCard(target.raw, 'alice');
      assert.equal(await codeOf(() => registry.revokeCard(body(target.id), caller)), expected);
      assert.equal(await registry.count(), 1);
    });
  }

  test('signatures optional and unverified; the stored card carries the service signature', async () => {
    for (const signatures of [undefined, [], [sig('self')]]) {
      const { registry } = await fresh();
      const target = makeCard('alice');
      await registry.createCard(target.raw, 'alice');
      const r = makeRevocation('alice', target.id, signatures ? { signatures } : {});
      const entry = await registry.revokeCard(r.raw, 'alice');
      assert.equal(entry.id, r.id);
      assert.equal(entry.card.signatures.at(-1)?.signer, 'service');
      assert.equal(entry.card.signatures.length, (signatures?.length ?? 0) + 1);
      assert.deepEqual(await registry.searchCards({ identity: 'alice' }), []);
    }
  });

  test('superseded target 40037 naming the last card; revoked chain 40310', async () => {
    const { registry } = await fresh();
    const a = makeCard('alice');
    const b = makeCard('alice', { previousCardId: a.id });
    await registry.createCard(a.raw, 'alice');
    await registry.createCard(b.raw, 'alice');
    await assert.rejects(
      registry.revokeCard(makeRevocation('alice', a.id).raw, 'alice'),
      (err: CardsError) => {
        assert.equal(err.code, 'PREVIOUS_SUPERSEDED');
        assert.match(err.message, new RegExp(b.id));
        return true;
      },
    );
    const r = makeRevocation('alice', b.id);
    await registry.revokeCard(r.raw, 'alice');
    for (const target of [a.id, b.id, r.id])
      assert.equal(
        await codeOf(() => registry.revokeCard(makeRevocation('alice', target).raw, 'alice')),
        'CHAIN_REVOKED',
      );
  });
});

describe('revoke by id (spec 4.5)', () => {
  test('refusals', async () => {
    const { registry } = await fresh();
    const a = makeCard('alice');
    const b = makeCard('alice', { previousCardId: a.id });
    await registry.createCard(a.raw, 'alice');
    await registry.createCard(b.raw, 'alice');
    const cases: [string, string, unknown, ErrorCode][] = [
      ['g'.repeat(64), 'alice', undefined, 'CARD_ID_INVALID'],
      ['abc', 'alice', undefined, 'CARD_ID_INVALID'],
      ['c'.repeat(64), 'alice', undefined, 'CARD_NOT_FOUND'],
      [b.id, 'bob', undefined, 'IDENTITY_MISMATCH'],
      [a.id, 'alice', undefined, 'PREVIOUS_SUPERSEDED'],
      [b.id, 'alice', { a: 1 }, 'BODY_PARSE'],
      [b.id, 'alice', [], 'BODY_PARSE'],
      [b.id, 'alice', 'x', 'BODY_PARSE'],
      [b.id, 'alice', null, 'BODY_PARSE'],
    ];
    for (const [id, caller, body, expected] of cases)
      assert.equal(
        await codeOf(() => registry.revokeCardById(id, caller, body)),
        expected,
        `${id.slice(0, 8)} ${caller} ${JSON.stringify(body)}`,
      );
    await assert.rejects(registry.revokeCardById(a.id, 'alice'), (err: CardsError) =>
      err.message.includes(b.id),
    );
  });

  test('builds, signs and stores the revoking card; the chain is then revoked', async () => {
    for (const body of [undefined, {}]) {
      const { registry } = await fresh();
      const a = makeCard('alice');
      await registry.createCard(a.raw, 'alice');
      const entry = await registry.revokeCardById(a.id.toUpperCase(), 'alice', body);
      const snapshot = decodeSnapshot(entry.card.content_snapshot, 'revocation');
      assert.equal(snapshot.previousCardId, a.id);
      assert.equal(snapshot.identity, 'alice');
      assert.equal(snapshot.createdAt, NOW / 1000);
      assert.deepEqual(
        entry.card.signatures.map((s) => s.signer),
        ['service'],
      );
      assert.equal((await registry.getCard(a.id)).superseded, true);
      assert.equal(await codeOf(() => registry.revokeCardById(a.id, 'alice')), 'CHAIN_REVOKED');
      assert.equal(await codeOf(() => registry.revokeCardById(entry.id, 'alice')), 'CHAIN_REVOKED');
    }
  });
});

describe('get and search', () => {
  test('get: id format, unknown, either case', async () => {
    const { registry } = await fresh();
    const a = makeCard('alice');
    await registry.createCard(a.raw, 'alice');
    assert.equal((await registry.getCard(a.id.toUpperCase())).id, a.id);
    assert.equal(await codeOf(() => registry.getCard('x')), 'CARD_ID_INVALID');
    assert.equal(await codeOf(() => registry.getCard(`${a.id}0`)), 'CARD_ID_INVALID');
    assert.equal(await codeOf(() => registry.getCard('0'.repeat(64))), 'CARD_NOT_FOUND');
  });

  test('search: query refusals', async () => {
    const { registry } = await fresh();
    const cases: [unknown, ErrorCode | 'none'][] = [
      [{}, 'SEARCH_EMPTY'],
      [{ identities: [] }, 'SEARCH_EMPTY'],
      [{ identity: '' }, 'SEARCH_EMPTY'],
      // An empty identity is refused in either form.
      [{ identities: [''] }, 'SEARCH_EMPTY'],
      [{ identities: ['alice', ''] }, 'SEARCH_EMPTY'],
      [{ identities: null, identity: null }, 'SEARCH_EMPTY'],
      [{ identities: Array.from({ length: 51 }, (_, i) => `u${i}`) }, 'SEARCH_TOO_MANY'],
      [{ identities: Array.from({ length: 50 }, (_, i) => `u${i}`) }, 'none'],
      [{ identities: 'alice' }, 'BODY_PARSE'],
      [{ identities: ['alice', 5] }, 'BODY_PARSE'],
      [{ identity: 5 }, 'BODY_PARSE'],
      [null, 'BODY_PARSE'],
      [[], 'BODY_PARSE'],
      [undefined, 'BODY_PARSE'],
    ];
    for (const [query, expected] of cases)
      assert.equal(
        await codeOf(() => registry.searchCards(query)),
        expected,
        JSON.stringify(query),
      );
  });

  test('search: identities in the order asked, chains oldest first, revoked chains left out, exact match', async () => {
    const { registry } = await fresh();
    const a1 = makeCard('alice');
    const b1 = makeCard('bob');
    const a2 = makeCard('alice');
    const a1n = makeCard('alice', { previousCardId: a1.id });
    const a3 = makeCard('alice');
    for (const c of [a1, b1, a2, a1n, a3])
      await registry.createCard(c.raw, c === b1 ? 'bob' : 'alice');
    await registry.revokeCardById(a2.id, 'alice');
    await registry.createCard(makeCard('Alice').raw, 'Alice');
    await registry.createCard(makeCard('alice2').raw, 'alice2');
    const ids = async (query: unknown): Promise<string[]> =>
      (await registry.searchCards(query)).map((e) => e.id);
    assert.deepEqual(await ids({ identities: ['bob', 'alice'] }), [b1.id, a1.id, a1n.id, a3.id]);
    assert.deepEqual(await ids({ identity: 'alice' }), [a1.id, a1n.id, a3.id]);
    assert.deepEqual(await ids({ identities: ['alice', 'alice'] }), [a1.id, a1n.id, a3.id]);
    assert.deepEqual(await ids({ identities: ['ALICE', 'ali', 'nobody'] }), []);
    assert.deepEqual(await ids({ identities: ['alice'], identity: 'bob' }), [a1.id, a1n.id, a3.id]);
  });
});

describe('concurrency: reservations give exactly one winner; visibility after the durable write', () => {
  test('the same card created 10 times at once', async () => {
    const g = gate();
    const { registry } = await fresh(g.options);
    const card = makeCard('alice');
    const results = Array.from({ length: 10 }, () =>
      codeOf(() => registry.createCard(card.raw, 'alice')),
    );
    assert.equal(
      await codeOf(() => registry.getCard(card.id)),
      'CARD_NOT_FOUND',
      'invisible until durable',
    );
    assert.deepEqual(await registry.searchCards({ identity: 'alice' }), []);
    g.open();
    const codes = await Promise.all(results);
    assert.equal(codes.filter((c) => c === 'none').length, 1);
    assert.equal(codes.filter((c) => c === 'SNAPSHOT_NOT_UNIQUE').length, 9);
    assert.equal((await registry.getCard(card.id)).id, card.id);
  });

  test('10 different replacements of one card at once', async () => {
    const g = gate();
    const { registry } = await fresh(g.options);
    g.open();
    const a = makeCard('alice');
    await registry.createCard(a.raw, 'alice');
    const g2 = gate();
    const { registry: r2 } = await fresh({
      cards: [(await registry.getCard(a.id)).card],
      ...g2.options,
    });
    const results = Array.from({ length: 10 }, () =>
      codeOf(() => r2.createCard(makeCard('alice', { previousCardId: a.id }).raw, 'alice')),
    );
    // A revocation racing the replacements: one winner among all 11, the others lose to it.
    results.push(codeOf(() => r2.revokeCardById(a.id, 'alice')));
    assert.equal(
      (await r2.getCard(a.id)).superseded,
      false,
      'not superseded before the write is durable',
    );
    g2.open();
    const codes = await Promise.all(results);
    assert.equal(codes.filter((code) => code === 'none').length, 1, codes.join());
    // Which request reaches the store first is the engine's (the PostgreSQL store batches its
    // lookups, so the revocation, with fewer steps after them, may get there first).
    const won = codes.indexOf('none');
    const expected = won === 10 ? 'CHAIN_REVOKED' : 'PREVIOUS_SUPERSEDED';
    assert.deepEqual(new Set(codes.filter((_, i) => i !== won)), new Set([expected]));
  });

  test('a pending revocation makes racing replacements and revocations 40310', async () => {
    const g = gate();
    const a = makeCard('alice');
    const seeded = await fresh();
    await seeded.registry.createCard(a.raw, 'alice');
    const { registry } = await fresh({ cards: await allCards(seeded.store), ...g.options });
    const results = [
      codeOf(() => registry.revokeCardById(a.id, 'alice')),
      codeOf(() => registry.revokeCardById(a.id, 'alice')),
      codeOf(() => registry.revokeCard(makeRevocation('alice', a.id).raw, 'alice')),
      codeOf(() => registry.createCard(makeCard('alice', { previousCardId: a.id }).raw, 'alice')),
    ];
    g.open();
    assert.deepEqual(await Promise.all(results), [
      'none',
      'CHAIN_REVOKED',
      'CHAIN_REVOKED',
      'CHAIN_REVOKED',
    ]);
  });

  test('a failed write: 500 STORE_UNAVAILABLE, nothing visible, the reservation released', async () => {
    let fail = true;
    const { registry, store } = await fresh({
      beforeAppend: () => {
        if (fail) throw Object.assign(new Error('ENOSPC: no space left'), { code: 'ENOSPC' });
      },
    });
    const a = makeCard('alice');
    await assert.rejects(registry.createCard(a.raw, 'alice'), (err: CardsError) => {
      assert.equal(err.code, 'STORE_UNAVAILABLE');
      assert.doesNotMatch(err.message, /ENOSPC/);
      return true;
    });
    assert.equal(await codeOf(() => registry.getCard(a.id)), 'CARD_NOT_FOUND');
    assert.equal((await allCards(store)).length, 0);
    fail = false;
    assert.equal((await registry.createCard(a.raw, 'alice')).id, a.id);
  });

  test("a store's own conflict error passes through (a shared database's unique index)", async () => {
    const { registry } = await fresh({
      beforeAppend: () => {
        throw new CardsError('SNAPSHOT_NOT_UNIQUE');
      },
    });
    assert.equal(
      await codeOf(() => registry.createCard(makeCard('alice').raw, 'alice')),
      'SNAPSHOT_NOT_UNIQUE',
    );
  });
});

describe('loading a store', () => {
  test('cards come back with their chains; impossible relations are STORE_CORRUPT', async () => {
    const { registry, store } = await fresh();
    const a = makeCard('alice');
    const b = makeCard('alice', { previousCardId: a.id });
    await registry.createCard(a.raw, 'alice');
    await registry.createCard(b.raw, 'alice');
    await registry.revokeCardById(b.id, 'alice');
    const stored = await allCards(store);
    const reloaded = (await fresh({ cards: stored })).registry;
    assert.equal(await reloaded.count(), 3);
    assert.equal((await reloaded.getCard(a.id)).superseded, true);
    assert.deepEqual(await reloaded.searchCards({ identity: 'alice' }), []);

    const [ca, cb, cr] = stored as [StoredCard, StoredCard, StoredCard];
    const broken: [string, StoredCard[]][] = [
      ['repeated id', [ca, ca]],
      ['previous missing', [cb]],
      ['previous later', [cb, ca]],
      ['previous replaced twice', [ca, cb, { ...cb, id: 'f'.repeat(64) }]],
      ['previous of another identity', [ca, { ...cb, identity: 'bob' }]],
      [
        'after a revoking card',
        [ca, cb, cr, { ...cb, id: 'e'.repeat(64), previous_card_id: cr.id }],
      ],
    ];
    for (const [name, cards] of broken)
      assert.equal(
        await codeOf(async () => (await fresh({ cards })).registry),
        'STORE_CORRUPT',
        name,
      );
  });
});

test('the service signature verifies with the service key over the snapshot alone', async () => {
  const { registry } = await fresh();
  const card = makeCard('alice');
  const entry = await registry.createCard(card.raw, 'alice');
  const expected = signEntry(card.snapshot, { signer: 'service', key: serviceKey });
  assert.deepEqual(entry.card.signatures.at(-1), expected);
});

describe('fuzz: any input is a 4xx CardsError or a success, never anything else', () => {
  const outcome = async (run: () => unknown): Promise<void> => {
    try {
      await run();
    } catch (err) {
      assert.ok(err instanceof CardsError, `not a CardsError: ${String(err)}`);
      assert.ok(isWireError(err) && err.status < 500, `${err.code} for bad input`);
    }
  };
  const field = fc.oneof(
    fc.jsonValue(),
    fc.string(),
    fc.integer(),
    fc.constantFrom('5.0', '', 'alice'),
  );
  const snapshotJson = fc.record(
    {
      identity: field,
      public_key: fc.oneof(field, fc.constant(encodeBase64(key.publicKey.spki))),
      previous_card_id: fc.oneof(field, fc.constant('a'.repeat(64))),
      version: field,
      created_at: field,
    },
    { requiredKeys: [] },
  );
  const body = fc.oneof(
    fc.jsonValue(),
    fc.record({
      content_snapshot: fc.oneof(
        field,
        snapshotJson.map((json) => snapshotOf(json)),
      ),
      signatures: fc.oneof(
        field,
        fc.array(
          fc.record({ signer: field, signature: field, snapshot: field }, { requiredKeys: [] }),
          {
            maxLength: 10,
          },
        ),
      ),
    }),
  );

  test('create, revoke, revoke by id, search, get', async () => {
    const { registry } = await fresh();
    await fc.assert(
      fc.asyncProperty(body, fc.string(), async (value, id) => {
        await outcome(() => registry.createCard(value, 'alice'));
        await outcome(() => registry.revokeCard(value, 'alice'));
        await outcome(() => registry.revokeCardById(id, 'alice', value));
        await outcome(() => registry.searchCards(value));
        await outcome(() => registry.getCard(id));
      }),
      { numRuns: 400 },
    );
  });
});
