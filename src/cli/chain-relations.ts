/**
 * Chain relations as the CLI can know them: every state comes from the one set of chain rules
 * (src/core/chain.ts, `linkChains`), fed with the cards the CLI can see. Used by `get`, `search`,
 * `create`, `rotate`, `unregister`, `revoke` and `seed`; no command guesses a state of its own.
 *
 * What the CLI can see over the public API (spec 4.2, 4.3): a card by id with the superseded
 * header, and every card of an identity's live chains by search; revoked chains are left out
 * of search whole (spec 4.3 rule 2). The `ChainSource` is the one place that decides what is
 * visible: `publicChainSource` reads search plus the revoked chains this CLI revoked itself
 * (revocation-notes.ts). A source that also lists revoked chains (an admin API) plugs in here
 * and every command gains the relations it reveals.
 */
import type { RawCard } from '../core/card.js';
import { linkChains, type CardState, type LinkedCard } from '../core/chain.js';
import type { CardsClient } from '../client/http-client.js';
import { viewCard, type CardView } from './card-builder.js';
import { notedCards } from './revocation-notes.js';

/** A card on the wire with its decoded view: what the chain rules link. */
interface ViewedCard extends CardView {
  readonly card: RawCard;
  readonly revoking: boolean;
}

export const viewed = (card: RawCard): ViewedCard => {
  const view = viewCard(card);
  return { ...view, card, revoking: view.publicKey === '' };
};

/** The cards of an identity's chains that can be seen, and which of them search listed. */
interface ChainSource {
  cardsOf(identity: string): Promise<{ cards: RawCard[]; listed: ReadonlySet<string> }>;
}

/** Search (live chains) plus the revoked chains this CLI revoked against the same service. */
export function publicChainSource(client: CardsClient, home: string): ChainSource {
  return {
    async cardsOf(identity) {
      const found = await client.searchCards([identity], identity);
      const listed = new Set(found.map((card) => viewCard(card).id));
      return { cards: [...found, ...notedCards(home, client.url, identity)], listed };
    },
  };
}

/** Links cards into chains (core rules), each chain newest card first. */
export function linkViewed(cards: readonly RawCard[]): LinkedCard<ViewedCard>[][] {
  const unique = new Map(cards.map(viewed).map((v) => [v.id, v]));
  return linkChains([...unique.values()]).map((chain) => chain.reverse());
}

/** The newest card of each of the identity's live chains (search lists live chains only). */
export async function liveCards(client: CardsClient, identity: string): Promise<ViewedCard[]> {
  return linkViewed(await client.searchCards([identity], identity))
    .flat()
    .filter((linked) => linked.state === 'active')
    .map((linked) => linked.card);
}

interface ChainRelation {
  readonly state: CardState;
  /** The card that replaced this one (not the revoking card that ended its chain). */
  readonly supersededBy: string | null;
  /** The revoking card that ended this card's chain, when it can be seen. */
  readonly revokedBy: string | null;
  /** Set when the chain is revoked and its revoking card cannot be seen. */
  readonly unknown: string | null;
}

const REVOKER_NOT_LISTED = 'the revoking card is not listed by search';

/**
 * The relation of one fetched card. No superseded header: nothing names it, it is active (or a
 * revoking card). With the header: its chain as the source shows it; a card that search does
 * not list while its header is set is in a revoked chain (spec 4.3 rule 2), whether or not the
 * revoking card can be seen.
 */
export async function relationOf(
  source: ChainSource,
  card: RawCard,
  superseded: boolean,
): Promise<ChainRelation> {
  const self = viewed(card);
  const alone = { supersededBy: null, revokedBy: null, unknown: null };
  if (self.revoking) return { state: 'revocation', ...alone };
  if (!superseded) return { state: 'active', ...alone };
  const { cards, listed } = await source.cardsOf(self.identity);
  const linked = linkViewed([card, ...cards])
    .flat()
    .find((l) => l.card.id === self.id);
  const successor = linked?.successor ?? null;
  const revokedBy = linked?.revokedBy ?? null;
  const supersededBy = successor !== null && successor !== revokedBy ? successor : null;
  if (revokedBy !== null || !listed.has(self.id))
    return {
      state: 'revoked',
      supersededBy,
      revokedBy,
      unknown: revokedBy === null ? REVOKER_NOT_LISTED : null,
    };
  return { state: linked?.state ?? 'superseded', supersededBy, revokedBy: null, unknown: null };
}

/** A created card's state (it is not a revoking card), and the card that revoked its chain. */
export interface CreatedCardState {
  readonly state: Exclude<CardState, 'revocation'>;
  readonly revokedBy: string | null;
}

/**
 * The states of cards created by this CLI (`seed`) after some of them were revoked, from the
 * core rules: the cards with their previous ids, and for each revoked id the revoking card the
 * service returned. A revoke whose answer held no card (the deployed service's revoke by id,
 * spec 4.5) still ends its chain: it is linked as a revoking card whose id is not known.
 */
export function statesAfterRevokes(
  cards: readonly { id: string; previousCardId: string | null }[],
  revokes: ReadonlyMap<string, RawCard | null>,
): Map<string, CreatedCardState> {
  const unknown = new Set<string>();
  const links = cards.map(({ id, previousCardId }) => ({ id, previousCardId, revoking: false }));
  for (const [revoked, card] of revokes) {
    const id = card ? viewCard(card).id : `(the revoking card of ${revoked})`;
    if (!card) unknown.add(id);
    links.push({ id, previousCardId: revoked, revoking: true });
  }
  const states = new Map<string, CreatedCardState>();
  for (const { card, state, revokedBy } of linkChains(links).flat())
    if (state !== 'revocation')
      states.set(card.id, {
        state,
        revokedBy: revokedBy === undefined || unknown.has(revokedBy) ? null : revokedBy,
      });
  return states;
}
