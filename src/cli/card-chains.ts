/**
 * An identity's cards linked into chains through previous_card_id (spec 4.3): each chain newest
 * first, its head active and the rest superseded; chains ordered by their newest card. Used by
 * `search` and `unregister` (which revokes each chain's head).
 */
import type { RawCard } from '../core/card.js';
import { viewCard, type CardView } from './card-builder.js';

export interface ChainCard extends CardView {
  state: 'active' | 'superseded';
  card: RawCard;
}

export function linkChains(cards: readonly RawCard[]): ChainCard[][] {
  const views = cards.map((card) => ({ ...viewCard(card), card }));
  const byId = new Map(views.map((v) => [v.id, v]));
  const replaced = new Set(views.map((v) => v.previousCardId).filter((id) => id !== null));
  const heads = views.filter((v) => !replaced.has(v.id));
  const chains = heads.map((head) => {
    const chain: ChainCard[] = [];
    const seen = new Set<string>();
    for (let at: typeof head | undefined = head; at && !seen.has(at.id);) {
      seen.add(at.id);
      chain.push({ ...at, state: at === head ? 'active' : 'superseded' });
      at = at.previousCardId === null ? undefined : byId.get(at.previousCardId);
    }
    return chain;
  });
  return chains.sort((a, b) => (b[0]?.createdAt ?? 0) - (a[0]?.createdAt ?? 0));
}
