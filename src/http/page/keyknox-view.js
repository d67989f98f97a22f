// e3kit's Keyknox blobs and entries, a page at a time (GET /_cards/keyknox: what a client stored
// and where, never its content), and Pythia's counts from /_cards/info when e3kit's routes are
// served. Location hash: #/keyknox?after=… (after: the cursor of the page). Every string a
// client sent goes in as text (dom.js `data`).
import { api } from './api.js';
import { data, el } from './dom.js';
import { pager, walkOf } from './pager.js';

const PAGE = 50;
/** Most read first: a narrow window scrolls to the version and hash. */
const COLUMNS = ['api', 'app', 'owner', 'root', 'path', 'key', 'readers', 'bytes'];

const listHash = (after) => `#/keyknox${after ? `?${new URLSearchParams({ after })}` : ''}`;

/** A hash a client holds, shortened; the whole one on hover. */
const shortHash = (hash) =>
  data(hash.length > 10 ? `${hash.slice(0, 10)}…` : hash, { title: hash, class: 'hash' });

/** An ISO 8601 date of the admin API to the second, on one line; the whole one on hover. */
const when = (iso, what) =>
  el(
    'span',
    { class: 'time', title: `${what} ${iso ?? 'unknown'}` },
    iso === null ? `${what} unknown` : data(iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z')),
  );

/** Readers shown in a row: an entry may name 1,024, of up to 1 KiB each. */
const READERS_SHOWN = 10;

/** The first READERS_SHOWN readers, then how many more the entry names. */
const readersOf = (readers) => [
  ...readers.slice(0, READERS_SHOWN).flatMap((reader, i) => [i > 0 ? ', ' : null, data(reader)]),
  readers.length > READERS_SHOWN
    ? el('span', { class: 'muted' }, ` … and ${readers.length - READERS_SHOWN} more`)
    : null,
];

const row = (r) =>
  el(
    'tr',
    { class: 'keyknox-row' },
    el('td', {}, r.api),
    el('td', {}, data(r.app)),
    el('td', { class: 'owner' }, data(r.owner)),
    el('td', {}, r.root === null ? null : data(r.root)),
    el('td', {}, r.path === null ? null : data(r.path)),
    el('td', { class: 'key' }, r.key === null ? null : data(r.key)),
    el('td', { class: 'readers' }, readersOf(r.readers)),
    el('td', { class: 'number' }, r.size),
    el('td', { class: 'dates' }, when(r.created, 'created'), el('br'), when(r.updated, 'updated')),
    el('td', {}, r.version ?? ''),
    el('td', {}, shortHash(r.hash)),
  );

/** Pythia's counts of /_cards/info: requests this server process answered and refused. */
const pythiaLine = (pythia) =>
  pythia
    ? el(
        'p',
        { id: 'pythia', class: 'muted' },
        `Pythia: ${pythia.brainkeys} brainkeys, ${pythia.passwords} password transforms, ${pythia.throttled} throttled (since this server started)`,
      )
    : null;

export async function keyknoxView(query, info) {
  const after = query.get('after') ?? '';
  const walk = walkOf('keyknox');
  const params = new URLSearchParams({ limit: String(PAGE) });
  if (after) params.set('cursor', after);
  const page = await api(`/_cards/keyknox?${params}`);
  const rows = page.keyknox.map(row);
  return [
    el(
      'h2',
      {},
      'Keyknox ',
      el(
        'span',
        { class: 'muted' },
        "(e3kit's backups: v1 blobs, then v2 entries; never their content)",
      ),
    ),
    pythiaLine(info.pythia),
    el(
      'table',
      { id: 'keyknox' },
      el(
        'tr',
        {},
        COLUMNS.map((h) => el('th', h === 'bytes' ? { class: 'number' } : {}, h)),
        el('th', {}, 'created, updated'),
        el('th', {}, 'version'),
        el('th', {}, 'hash'),
      ),
      rows,
    ),
    ...pager(walk, {
      after,
      next: page.next_cursor,
      shown: rows.length,
      noun: 'entries',
      empty: 'No Keyknox entry is stored.',
      emptyLater: 'No more entries.',
      hashOf: listHash,
    }),
  ];
}
