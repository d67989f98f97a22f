/**
 * One rule for the text of a card on every engine (docs/http.md, "Text"): an identity, like
 * every string of a content snapshot, is well-formed Unicode without U+0000. PostgreSQL text
 * cannot hold U+0000 and stores a lone surrogate as U+FFFD, so without the rule one engine
 * would refuse (and a whole batch of other users' cards with it) what another stores, and
 * "x\uD800", "x\uDBFF" and "x\uFFFD" would be one identity there. Refused alike, 40091, on
 * create, revoke, search, import and the admin reads, before any engine sees it.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { encodeBase64, utf8 } from '../../src/core/encoding.js';
import { generatePrivateKey } from '../../src/crypto/keys.js';
import { signParts } from '../../src/crypto/ed25519.js';
import { cardIdOf } from '../../src/core/card-id.js';
import { Admin } from '../../src/registry/admin.js';
import { createRegistry } from '../../src/registry/registry.js';
import { ENGINE_NAMES, allCards, openTestStore } from '../store/engines.js';
import { makeCard } from '../http/card-kit.js';
import { codeOf } from '../helpers/code-of.js';

const serviceKey = generatePrivateKey();

/** A self-signed card whose snapshot JSON text is `json` exactly (escapes as written). */
function cardOfText(json: string): {
  id: string;
  raw: { content_snapshot: string; signatures: { signer: string; signature: string }[] };
} {
  const key = generatePrivateKey();
  const bytes = utf8(json.replace('$KEY', encodeBase64(key.publicKey.spki)));
  return {
    id: cardIdOf(bytes),
    raw: {
      content_snapshot: encodeBase64(bytes),
      signatures: [{ signer: 'self', signature: encodeBase64(signParts(key, bytes)) }],
    },
  };
}

let clock = 1_700_000_000;
const snapshotText = (identityJson: string, extra = ''): string =>
  `{"identity":${identityJson},"public_key":"$KEY","version":"5.0","created_at":${clock++}${extra}}`;

/** Identities as JSON text, and the string each stands for. */
const NOT_TEXT: [string, string][] = [
  ['"x\\u0000"', 'x\u0000'],
  ['"x\\ud800"', 'x\uD800'],
  ['"x\\udbff"', 'x\uDBFF'],
  ['"\\udc00x"', '\uDC00x'],
];

for (const engine of ENGINE_NAMES) {
  describe(`the text rule on the ${engine} engine`, () => {
    const fresh = async () => {
      const store = await openTestStore(engine);
      return { store, registry: createRegistry({ store, serviceKey, signer: 'service' }) };
    };

    test('an identity with U+0000 or a lone surrogate is refused with 40091, and nothing is stored', async () => {
      const { store, registry } = await fresh();
      for (const [json, identity] of NOT_TEXT) {
        const card = cardOfText(snapshotText(json));
        assert.equal(
          await codeOf(() => registry.createCard(card.raw, identity)),
          'TEXT_NOT_UNICODE',
          json,
        );
      }
      // Another string of the snapshot: a name, or the value of a field no one reads.
      for (const extra of [',"note":"a\\u0000b"', ',"\\ud800":1', ',"deep":{"x":["\\udfff"]}']) {
        const card = cardOfText(snapshotText('"alice"', extra));
        assert.equal(
          await codeOf(() => registry.createCard(card.raw, 'alice')),
          'TEXT_NOT_UNICODE',
          extra,
        );
      }
      assert.equal((await allCards(store)).length, 0);
      await store.close();
    });

    test('"x\\uFFFD" is an identity of its own: a search for a lone surrogate is refused, never matched to it', async () => {
      const { store, registry } = await fresh();
      const card = makeCard('x\uFFFD');
      await registry.createCard(card.raw, 'x\uFFFD');
      for (const [, identity] of NOT_TEXT) {
        assert.equal(
          await codeOf(() => registry.searchCards({ identities: [identity] })),
          'TEXT_NOT_UNICODE',
        );
        assert.equal(await codeOf(() => registry.searchCards({ identity })), 'TEXT_NOT_UNICODE');
      }
      const found = await registry.searchCards({ identities: ['x\uFFFD'] });
      assert.deepEqual(
        found.map((entry) => entry.id),
        [card.id],
      );
      await store.close();
    });

    test('the admin API: an import line, a history or a listing of such text is refused; nothing reaches the engine', async () => {
      const { store } = await fresh();
      const admin = new Admin(store);
      for (const [json, identity] of NOT_TEXT) {
        const card = cardOfText(snapshotText(json));
        const line = JSON.stringify({ id: card.id, identity, ...card.raw });
        const lines = (async function* () {
          yield line;
        })();
        assert.equal(await codeOf(() => admin.import(lines, true)), 'IMPORT_INVALID', json);
        assert.equal(await codeOf(() => admin.history(identity)), 'IDENTITY_NOT_FOUND', json);
        assert.equal(
          await codeOf(() => admin.identities({ prefix: identity, limit: 10 })),
          'QUERY_INVALID',
        );
        assert.equal(
          await codeOf(() => admin.identities({ after: identity, limit: 10 })),
          'QUERY_INVALID',
        );
      }
      assert.equal((await allCards(store)).length, 0);
      await store.close();
    });

    test('honest creates racing refused ones all succeed (a refused card never shares a write with them)', async () => {
      const { store, registry } = await fresh();
      const honest = Array.from({ length: 30 }, (_, i) => makeCard(`user-${i}`));
      const poisoned = Array.from({ length: 30 }, () => cardOfText(snapshotText('"x\\u0000"')));
      const outcomes = await Promise.all([
        ...honest.map((card, i) => codeOf(() => registry.createCard(card.raw, `user-${i}`))),
        ...poisoned.map((card) => codeOf(() => registry.createCard(card.raw, 'x\u0000'))),
      ]);
      assert.deepEqual(outcomes.slice(0, 30), Array(30).fill('none'));
      assert.deepEqual(outcomes.slice(30), Array(30).fill('TEXT_NOT_UNICODE'));
      assert.equal((await allCards(store)).length, 30);
      await store.close();
    });
  });
}
