// One identity: its chains as a timeline, oldest first, each card with its state and date.
// Location hash: #/identity/<segment>[?form=json] (api.js identityRef).
import { history, identityRef } from './api.js';
import { data, date, el, shortId } from './dom.js';

/** The location hash of a card of `identity`. */
export const cardHash = (identity, id) => {
  const { segment, query } = identityRef(identity);
  return `#/card/${segment}/${encodeURIComponent(id)}${query}`;
};

export async function identityView(identity) {
  const found = await history(identity);
  const chains = found.chains.map((chain, i) =>
    el(
      'div',
      { class: 'chain' },
      el('strong', {}, `Chain ${i + 1}`),
      ' ',
      el('span', { class: 'badge' }, chain.revoked ? 'revoked' : 'live'),
      el(
        'ol',
        {},
        chain.cards.map((card) =>
          el(
            'li',
            { class: `card state-${card.state}` },
            el('a', { href: cardHash(identity, card.id), class: 'id' }, shortId(card.id)),
            el('br'),
            el('span', { class: 'badge' }, card.state),
            ' ',
            date(card.created_at),
          ),
        ),
      ),
    ),
  );
  return [el('h2', {}, data(identity)), el('div', { class: 'timeline' }, chains)];
}
