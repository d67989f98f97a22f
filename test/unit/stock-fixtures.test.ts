/**
 * Known answers from the deployed service's stock client (fixtures/stock-client-cards.json,
 * made by interop/make-fixtures.mjs with virgil-sdk 6.2.0 / virgil-crypto 5.1.2).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseRawCard, parseSignatures, type RawCard } from '../../src/core/card.js';
import { cardIdOf } from '../../src/core/card-id.js';
import { decodeSnapshot } from '../../src/core/snapshot.js';
import { parsePrivateKey, parsePublicKey, type PublicKey } from '../../src/crypto/keys.js';
import { signEntry } from '../../src/crypto/sign-card.js';
import { verifyToken } from '../../src/crypto/tokens.js';
import { verifyCardSignatures } from '../../src/crypto/verify-card.js';
import { CardsError } from '../../src/core/errors.js';
import { readFixture } from '../helpers/fixtures.js';

interface StockFixture {
  keys: { name: string; private_key_base64: string; public_key_base64: string }[];
  cards: {
    name: string;
    card: RawCard;
    card_id: string;
    identity: string;
    previous_card_id: string | null;
    signer_keys: Record<string, string>;
  }[];
  tokens: {
    name: string;
    jwt: string;
    app_id: string;
    app_key_id: string;
    app_public_key_base64: string;
    identity: string;
    issued_at: number;
    expires_at: number;
  }[];
}
const fixture = readFixture<StockFixture>('stock-client-cards.json');

test('card ids match the stock client', () => {
  for (const { name, card, card_id, identity, previous_card_id } of fixture.cards) {
    const snapshot = decodeSnapshot(parseRawCard(card).content_snapshot, 'card');
    assert.equal(cardIdOf(snapshot.bytes), card_id, name);
    assert.equal(snapshot.identity, identity);
    assert.equal(snapshot.previousCardId, previous_card_id ?? undefined);
  }
});

test('stock signatures verify, self and extra signers alike', async () => {
  for (const { name, card, signer_keys } of fixture.cards) {
    const snapshot = decodeSnapshot(card.content_snapshot, 'card');
    const trusted = new Map<string, PublicKey>(
      Object.entries(signer_keys).map(([signer, key]) => [signer, parsePublicKey(key)]),
    );
    const verdicts = await verifyCardSignatures(
      snapshot,
      parseSignatures(card.signatures, { reservedSigner: 'service', requireSelf: true }),
      { trusted },
    );
    assert.ok(verdicts.length >= 1);
    for (const verdict of verdicts)
      assert.equal(verdict.status, 'valid', `${name}: ${verdict.signer} ${verdict.reason}`);
  }
});

test('our signatures are byte-identical to the stock client (Ed25519 is deterministic)', () => {
  const keysByPublic = new Map(
    fixture.keys.map((k) => [k.public_key_base64, parsePrivateKey(k.private_key_base64)]),
  );
  let compared = 0;
  for (const { card, signer_keys } of fixture.cards) {
    const snapshot = decodeSnapshot(card.content_snapshot, 'card');
    for (const entry of card.signatures) {
      const key = keysByPublic.get(signer_keys[entry.signer] ?? '');
      assert.ok(key, `private key for ${entry.signer}`);
      const extra = entry.snapshot
        ? new Uint8Array(Buffer.from(entry.snapshot, 'base64'))
        : undefined;
      assert.equal(
        signEntry(snapshot, { signer: entry.signer, key, snapshot: extra }).signature,
        entry.signature,
      );
      compared++;
    }
  }
  assert.ok(compared >= 5);
});

test('stock-format tokens verify; the expired one gets 20304', async () => {
  for (const token of fixture.tokens) {
    const options = {
      keys: [{ key: parsePublicKey(token.app_public_key_base64), kid: token.app_key_id }],
      appId: token.app_id,
      appKeyId: token.app_key_id,
      now: (token.issued_at + 60) * 1000,
    };
    const verified = await verifyToken(token.jwt, options);
    assert.equal(verified.identity, token.identity, token.name);
    assert.equal(verified.expiresAt, token.expires_at);
    await assert.rejects(
      verifyToken(token.jwt, { ...options, now: (token.expires_at + 120) * 1000 }),
      (err: unknown) =>
        err instanceof CardsError && err.code === 'TOKEN_EXPIRED' && err.number === 20304,
    );
  }
});
