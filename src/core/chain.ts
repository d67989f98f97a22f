/**
 * The chain rules (spec 2.2 rules 1-3, spec section 3, docs/errors.md), pure.
 *
 * A chain is the line of cards linked through previous_card_id: ids and previous ids are unique,
 * so a chain never branches. Its last card is live, unless it is a revoking card (empty public
 * key), which ends the chain: the chain is revoked. Every store, the registry and the CLI read a
 * card's state and the refusal for naming a card as previous from here, so they cannot disagree.
 */
import { CardsError, type ErrorCode } from './errors.js';

/**
 * The state of a card (spec section 3):
 * - `active`: the last card of a live chain;
 * - `superseded`: replaced by a later card of a live chain;
 * - `revoked`: any card of a chain that ends in a revoking card;
 * - `revocation`: the revoking card itself (empty public key).
 */
export type CardState = 'active' | 'superseded' | 'revoked' | 'revocation';

export const CARD_STATES: readonly CardState[] = ['active', 'superseded', 'revoked', 'revocation'];

/** What a store knows of a card's place in its chain. */
export interface ChainPlace {
  /** The card itself has an empty public key. */
  readonly revoking: boolean;
  /** Id of the card naming this one as previous_card_id (a replacement or a revoking card). */
  readonly successor: string | undefined;
  /** Id of the revoking card that ends this card's chain, when the chain is revoked. */
  readonly revokedBy: string | undefined;
}

export function cardState(place: ChainPlace): CardState {
  if (place.revoking) return 'revocation';
  if (place.revokedBy !== undefined) return 'revoked';
  return place.successor === undefined ? 'active' : 'superseded';
}

/**
 * Why a card may not name `target` as its previous card, or undefined when it may. `revoking`:
 * the new card is a revoking card. The deployed service's answers:
 * - revoking any card of a revoked chain: 40310;
 * - naming a card whose successor is the revoking card: 40310 (the chain is deleted);
 * - naming any other replaced card: 40037;
 * - naming the revoking card itself (the last card of a revoked chain): 40310. The registry
 *   checks the duplicate id (40027) before this last case, as the deployed service does, so
 *   `previousConflict` reports it separately through `previousIsRevoking`.
 * Reservations of cards still being written count as cards: a store passes a place that
 * includes them, so racing requests get the same answers as sequential ones.
 */
export function previousConflict(
  target: ChainPlace,
  revoking: boolean,
): Extract<ErrorCode, 'CHAIN_REVOKED' | 'PREVIOUS_SUPERSEDED'> | undefined {
  if (revoking && target.revokedBy !== undefined) return 'CHAIN_REVOKED';
  if (target.successor === undefined) return undefined;
  if (target.successor === target.revokedBy) return 'CHAIN_REVOKED';
  return 'PREVIOUS_SUPERSEDED';
}

/**
 * The chain rules' refusals that name the cards involved, worded once for the registry's checks
 * and every engine's atomic re-check, so a race lost in a store reads as a sequential refusal.
 */
export const previousNotFound = (previousId: string): CardsError =>
  new CardsError('PREVIOUS_NOT_FOUND', `Previous Card ID ${previousId} does not exist.`);

/** `lastId`: the last card of the chain `previousId` is in, as the store can tell it. */
export const previousSuperseded = (previousId: string, lastId: string | undefined): CardsError =>
  new CardsError(
    'PREVIOUS_SUPERSEDED',
    `Previous Card exists already: card ${previousId} is superseded; the last card of its chain is ${lastId}.`,
  );

export const snapshotNotUnique = (id: string): CardsError =>
  new CardsError('SNAPSHOT_NOT_UNIQUE', `Card content snapshot is not unique: card ${id} exists.`);

/** A card as the CLI sees it on the wire: enough to link chains. */
export interface ChainLink {
  readonly id: string;
  readonly previousCardId: string | null | undefined;
  /** Empty public key. */
  readonly revoking: boolean;
}

export interface LinkedCard<T extends ChainLink> {
  readonly card: T;
  readonly state: CardState;
  readonly successor: string | undefined;
  readonly revokedBy: string | undefined;
}

/**
 * Links a set of cards into chains (oldest card first) and gives each card its state. A card
 * whose previous card is not in the set starts a chain; cycles (impossible for real cards) are
 * cut. Used where the cards come from the wire (search results, a seed run), so that the CLI
 * states are the stores' states.
 */
export function linkChains<T extends ChainLink>(cards: readonly T[]): LinkedCard<T>[][] {
  const byId = new Map(cards.map((card) => [card.id, card]));
  const successorOf = new Map<string, T>();
  for (const card of cards) {
    const previous = card.previousCardId;
    if (previous && byId.has(previous) && !successorOf.has(previous))
      successorOf.set(previous, card);
  }
  const chains: LinkedCard<T>[][] = [];
  const seen = new Set<string>();
  for (const first of cards) {
    const previous = first.previousCardId;
    if (previous && byId.has(previous) && successorOf.get(previous) === first) continue;
    const line: T[] = [];
    for (let at: T | undefined = first; at && !seen.has(at.id); at = successorOf.get(at.id)) {
      seen.add(at.id);
      line.push(at);
    }
    const last = line[line.length - 1];
    const revokedBy = last?.revoking ? last.id : undefined;
    chains.push(
      line.map((card) => {
        const successor = successorOf.get(card.id)?.id;
        const place = { revoking: card.revoking, successor, revokedBy };
        return { card, state: cardState(place), successor, revokedBy };
      }),
    );
  }
  return chains;
}
