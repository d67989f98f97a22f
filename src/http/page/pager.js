// Walking a listing of the admin API a page at a time (its cursor: what the last page said
// comes next): the cursor each page was reached from and the number of its first row, kept per
// listing and filter in this tab, so that "Previous page" goes back and a page knows which rows
// it shows (a page may hold fewer rows than asked: the admin API bounds a page in bytes too,
// docs/http.md); and the pager line.
import { el } from './dom.js';

/**
 * This tab's walks, by listing: the filter walked, each page's cursor by the next one's
 * (`before`), and the number of each page's first row by its cursor (`first`).
 */
const walks = new Map();

/** The walk through `listing` with `filter` (a new one when the filter changed). */
export function walkOf(listing, filter = '') {
  let walk = walks.get(listing);
  if (walk?.filter !== filter)
    walks.set(listing, (walk = { filter, before: new Map(), first: new Map([['', 1]]) }));
  return walk;
}

/**
 * What ends the page reached from `after` ('' for the first) that ends at `next` (null on the
 * last) and shows `shown` rows: a note when it shows none (`empty`: on the first page, and
 * `emptyLater` on another), then the pager line: first or previous page, the rows' range
 * (`noun` 1–50), next page; `hashOf(cursor)` is a page's location hash.
 */
export function pager(walk, { after, next, shown, noun, hashOf, empty, emptyLater }) {
  // The first row's number, known when this page was reached by walking from the first.
  const first = walk.first.get(after);
  if (next) {
    walk.before.set(next, after);
    if (first !== undefined) walk.first.set(next, first + shown);
  }
  const previous = after === '' ? undefined : walk.before.get(after);
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
