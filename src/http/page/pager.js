// Walking a listing of the admin API a page at a time (its cursor: what the last page said
// comes next): the cursor each page was reached from, kept per listing and filter in this tab,
// so that "Previous page" goes back and a page knows which rows it shows; and the pager line.
import { el } from './dom.js';

/** This tab's walks, by listing: the filter walked, and each page's cursor by the next one's. */
const walks = new Map();

/** The walk through `listing` with `filter` (a new one when the filter changed). */
export function walkOf(listing, filter = '') {
  let walk = walks.get(listing);
  if (walk?.filter !== filter) walks.set(listing, (walk = { filter, before: new Map() }));
  return walk;
}

/** How many pages lie before the page at `after` on `walk` (undefined: not known). */
function pagesBefore(walk, after) {
  let n = 0;
  for (let at = after; at !== ''; n++) {
    at = walk.before.get(at);
    if (at === undefined) return undefined;
  }
  return n;
}

/**
 * What ends the page reached from `after` ('' for the first) that ends at `next` (null on the
 * last) and shows `shown` rows of at most `size`: a note when it shows none (`empty`: on the
 * first page, and `emptyLater` on another), then the pager line: first or previous page, the
 * rows' range (`noun` 1–50), next page; `hashOf(cursor)` is a page's location hash.
 */
export function pager(walk, { after, next, shown, size, noun, hashOf, empty, emptyLater }) {
  if (next) walk.before.set(next, after);
  const before = pagesBefore(walk, after);
  const previous = after === '' ? undefined : walk.before.get(after);
  const first = before === undefined ? undefined : before * size + 1;
  const none = shown === 0 ? el('p', { class: 'muted' }, after ? emptyLater : empty) : null;
  const line = el(
    'p',
    { class: 'pager' },
    after === ''
      ? null
      : previous === undefined
        ? el('a', { id: 'first', href: hashOf('') }, '« First page')
        : el('a', { id: 'previous', href: hashOf(previous) }, '‹ Previous page'),
    ' ',
    shown > 0 && first !== undefined
      ? el('span', { class: 'muted', id: 'range' }, `${noun} ${first}–${first + shown - 1}`)
      : null,
    ' ',
    next ? el('a', { id: 'next', href: hashOf(next) }, 'Next page ›') : null,
  );
  return [none, line];
}
