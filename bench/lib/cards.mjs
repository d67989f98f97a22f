// Signed cards and tokens for the benchmarks, made with the project's own built modules before
// any timed part starts. Every card is unique (its own created_at), so a create never collides.
import { readFileSync } from 'node:fs';
import { buildSnapshot, cardIdOf } from 'cards/core';
import { generatePrivateKey, mintToken, parsePrivateKey, signCard } from 'cards/crypto';

// A few owner keys, reused: the server imports each card's key anew, so its cost per create does
// not depend on which key signed (were it ever to cache keys, give every card its own key here).
const KEYS = Array.from({ length: 16 }, () => generatePrivateKey());
let clock = 1_700_000_000;

/** One signed card: its id and its request body as JSON text. */
export function makeCard(identity, previousCardId) {
  const key = KEYS[clock % KEYS.length];
  const snapshot = buildSnapshot({
    identity,
    publicKey: key.publicKey.spki,
    createdAt: clock++,
    ...(previousCardId !== undefined && { previousCardId }),
  });
  return {
    id: cardIdOf(snapshot.bytes),
    identity,
    body: JSON.stringify(signCard(snapshot, { self: key })),
  };
}

/**
 * The cards of a bench store, in two waves: `count` cards over identities `<prefix>-<k>`, where
 * one identity in four has a chain of two (a card and its replacement) and the others a single
 * card. The first wave holds every chain's first card, the second the replacements, so a wave
 * can be created all at once.
 */
export function storeWaves(count, prefix = 'user') {
  const pairs = Math.floor(count / 5); // 2 × pairs + singles = count, identities = 4 × pairs
  const first = [];
  for (let k = 0; k < count - pairs; k++) first.push(makeCard(`${prefix}-${k}@example.com`));
  const second = first.slice(0, pairs).map((card) => makeCard(card.identity, card.id));
  return [first, second];
}

/** The identities a store of `count` cards made by storeCards holds. */
export const storeIdentities = (count, prefix = 'user') =>
  Array.from({ length: count - Math.floor(count / 5) }, (_, k) => `${prefix}-${k}@example.com`);

/** Tokens for identities, signed by the app key file a `cards serve` keeps beside its store. */
export async function mintTokens(appKeyPath, identities, ttlSeconds = 3600) {
  const key = parsePrivateKey(readFileSync(appKeyPath, 'utf8'));
  const now = Date.now();
  const tokens = new Map();
  for (const identity of identities)
    tokens.set(identity, await mintToken({ key, identity, now, ttlSeconds }));
  return tokens;
}

/**
 * A pool of create requests for autocannon: `count` new cards spread over `identities` (each
 * with its token, as a client reuses its token), pre-serialised.
 */
export async function createPool(appKeyPath, count, identities) {
  const tokens = await mintTokens(appKeyPath, identities);
  return Array.from({ length: count }, (_, i) => {
    const identity = identities[i % identities.length];
    const card = makeCard(identity);
    return {
      method: 'POST',
      path: '/card/v5',
      headers: {
        'content-type': 'application/json',
        authorization: `Service ${tokens.get(identity)}`,
      },
      body: card.body,
    };
  });
}
