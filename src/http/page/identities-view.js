// The identities, a page at a time (the admin API's cursor: the last identity of a page), with
// a filter by prefix. Location hash: #/?prefix=…&after=… (after: the cursor of the page).
import { api, identityRef } from './api.js';
import { data, el } from './dom.js';
import { pager, walkOf } from './pager.js';

const PAGE = 50;

const listHash = (prefix, after) => {
  const query = new URLSearchParams();
  if (prefix) query.set('prefix', prefix);
  if (after) query.set('after', after);
  return `#/${query.size ? `?${query}` : ''}`;
};

export async function identitiesView(query, info) {
  const prefix = query.get('prefix') ?? '';
  const after = query.get('after') ?? '';
  const walk = walkOf('identities', prefix);
  const params = new URLSearchParams({ limit: String(PAGE) });
  if (prefix) params.set('prefix', prefix);
  if (after) params.set('cursor', after);
  const page = await api(`/_cards/identities?${params}`);

  const search = el('input', {
    type: 'search',
    name: 'prefix',
    placeholder: 'identity starts with…',
  });
  search.value = prefix;
  const form = el(
    'form',
    {
      onsubmit: (event) => {
        event.preventDefault();
        location.hash = listHash(search.value, '');
      },
    },
    search,
    ' ',
    el('button', { type: 'submit' }, 'Search'),
  );
  const rows = page.identities.map((item) => {
    const { segment, query: form } = identityRef(item.identity);
    return el(
      'tr',
      { class: 'identity-row' },
      el('td', {}, el('a', { href: `#/identity/${segment}${form}` }, data(item.identity))),
      el('td', { class: 'number' }, item.cards),
      el('td', { class: 'number' }, item.live_chains),
      el('td', { class: 'number' }, item.revoked_chains),
    );
  });
  return [
    el(
      'h2',
      {},
      'Identities ',
      el('span', { class: 'muted' }, `(${info.cards} cards in the registry)`),
    ),
    form,
    el(
      'table',
      { id: 'identities' },
      el(
        'tr',
        {},
        el('th', {}, 'identity'),
        el('th', { class: 'number' }, 'cards'),
        el('th', { class: 'number' }, 'live chains'),
        el('th', { class: 'number' }, 'revoked chains'),
      ),
      rows,
    ),
    ...pager(walk, {
      after,
      next: page.next_cursor,
      shown: rows.length,
      noun: 'identities',
      empty: 'No identity matches.',
      emptyLater: 'No more identities.',
      hashOf: (cursor) => listHash(prefix, cursor),
    }),
  ];
}
