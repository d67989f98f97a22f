// The identities, a page at a time (the admin API's cursor: the last identity of a page), with
// a filter by prefix. Location hash: #/?prefix=…&after=… (after: the cursor of the page).
import { api, identityRef } from './api.js';
import { data, el } from './dom.js';

const PAGE = 50;

/**
 * The cursor each page was reached from, by the cursor of the page before it (this tab's
 * walk through one prefix): what "Previous page" goes back to, and which rows a page shows.
 */
let walk = { prefix: '', before: new Map() };

const listHash = (prefix, after) => {
  const query = new URLSearchParams();
  if (prefix) query.set('prefix', prefix);
  if (after) query.set('after', after);
  return `#/${query.size ? `?${query}` : ''}`;
};

/** How many pages lie before the page at `after` on this walk (undefined: not known). */
function pagesBefore(after) {
  let n = 0;
  for (let at = after; at !== ''; n++) {
    at = walk.before.get(at);
    if (at === undefined) return undefined;
  }
  return n;
}

export async function identitiesView(query, info) {
  const prefix = query.get('prefix') ?? '';
  const after = query.get('after') ?? '';
  if (walk.prefix !== prefix) walk = { prefix, before: new Map() };
  const params = new URLSearchParams({ limit: String(PAGE) });
  if (prefix) params.set('prefix', prefix);
  if (after) params.set('cursor', after);
  const page = await api(`/_cards/identities?${params}`);
  if (page.next_cursor) walk.before.set(page.next_cursor, after);

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
  const before = pagesBefore(after);
  const previous = after === '' ? undefined : walk.before.get(after);
  const first = before === undefined ? undefined : before * PAGE + 1;
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
    rows.length === 0
      ? el('p', { class: 'muted' }, after ? 'No more identities.' : 'No identity matches.')
      : null,
    el(
      'p',
      { class: 'pager' },
      after === ''
        ? null
        : previous === undefined
          ? el('a', { id: 'first', href: listHash(prefix, '') }, '« First page')
          : el('a', { id: 'previous', href: listHash(prefix, previous) }, '‹ Previous page'),
      ' ',
      rows.length > 0 && first !== undefined
        ? el(
            'span',
            { class: 'muted', id: 'range' },
            `identities ${first}–${first + rows.length - 1}`,
          )
        : null,
      ' ',
      page.next_cursor
        ? el('a', { id: 'next', href: listHash(prefix, page.next_cursor) }, 'Next page ›')
        : null,
    ),
  ];
}
