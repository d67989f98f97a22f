/**
 * Why a card cannot be inserted, read from a store's committed state, in the order the
 * registry and ../card-index.ts `reserve` check it (Cards spec 3 and 4.1): previous missing
 * (40015) → previous replaced (40037, or 40310 when its chain is revoked; src/core/chain.ts) →
 * other identity (40032) → duplicate id (40027) → previous is the revoking card (40310). A
 * shared engine (PostgreSQL) asks this after its atomic insert refused a card, so a loser of a
 * race gets the same code and message as on the JSON store.
 */
import {
  previousConflict,
  previousNotFound,
  previousSuperseded,
  snapshotNotUnique,
} from '../../core/chain.js';
import { CardsError } from '../../core/errors.js';
import type { CardEntry, StoredCard } from '../store.js';

export interface ConflictQueries {
  getCard(id: string): Promise<CardEntry | undefined>;
  lastOfChain(id: string): Promise<CardEntry | undefined>;
}

/** The refusal for `card`, or undefined when nothing stored now stands in its way. */
export async function insertConflict(
  store: ConflictQueries,
  card: StoredCard,
): Promise<CardsError | undefined> {
  let previous: CardEntry | undefined;
  if (card.previous_card_id !== undefined) {
    previous = await store.getCard(card.previous_card_id);
    if (!previous) return previousNotFound(card.previous_card_id);
    const conflict = previousConflict(previous, card.revoking === true);
    if (conflict === 'PREVIOUS_SUPERSEDED') {
      const last = await store.lastOfChain(previous.id);
      return previousSuperseded(previous.id, last?.id ?? previous.successor);
    }
    if (conflict) return new CardsError(conflict);
    if (previous.card.identity !== card.identity)
      return new CardsError('PREVIOUS_IDENTITY_MISMATCH');
  }
  if (await store.getCard(card.id)) return snapshotNotUnique(card.id);
  if (previous?.revoking) return new CardsError('CHAIN_REVOKED');
  return undefined;
}
