// The page of cards serve (issue 15): read-only views of the registry over the admin API.
// Signatures and card ids are checked here, in the browser, with @noble/curves and
// @noble/hashes (served by this server): the page takes no verdict from the server.
// Views (location hash): #/ identities, #/identity/<id>, #/card/<identity>/<card id>, #/requests.
import { ed25519 } from '@noble/curves/ed25519.js';
import { sha512 } from '@noble/hashes/sha2.js';

const view = document.getElementById('view');
const TOKEN_KEY = 'cards-admin-token';
const PAGE = 50;
let info;
let timer;

const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs))
    if (key === 'onclick' || key === 'onsubmit' || key === 'oninput') node[key] = value;
    else node.setAttribute(key, value);
  for (const child of children.flat())
    if (child !== undefined && child !== null)
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return node;
};
const show = (...nodes) => view.replaceChildren(...nodes);
const date = (seconds) =>
  seconds == null ? '?' : new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
const short = (id) => (id ? `${id.slice(0, 12)}…` : '');

class Unauthorized extends Error {}

async function api(path) {
  const token = sessionStorage.getItem(TOKEN_KEY);
  const response = await fetch(
    path,
    token ? { headers: { authorization: `Bearer ${token}` } } : {},
  );
  if (response.status === 401) throw new Unauthorized();
  const body = await response.json();
  if (!response.ok) throw new Error(`${body.code}: ${body.message}`);
  return body;
}

function askToken(message) {
  const input = el('input', {
    type: 'password',
    name: 'token',
    placeholder: 'admin token',
    autocomplete: 'off',
  });
  show(
    el('h2', {}, 'Admin token'),
    el(
      'p',
      {},
      message ??
        'This server listens beyond loopback: paste the admin token its banner printed ("admin token: …").',
    ),
    el(
      'form',
      {
        onsubmit: (event) => {
          event.preventDefault();
          sessionStorage.setItem(TOKEN_KEY, input.value.trim());
          void route();
        },
      },
      input,
      ' ',
      el('button', { type: 'submit' }, 'Open'),
    ),
  );
}

// ---- identities ------------------------------------------------------------------------------

async function identitiesView(prefix = '', cursor = '') {
  const search = el('input', {
    type: 'search',
    name: 'prefix',
    placeholder: 'identity starts with…',
    value: prefix,
  });
  const form = el(
    'form',
    { onsubmit: (event) => (event.preventDefault(), void identitiesView(search.value)) },
    search,
    ' ',
    el('button', { type: 'submit' }, 'Search'),
  );
  const query = new URLSearchParams({ limit: String(PAGE) });
  if (prefix) query.set('prefix', prefix);
  if (cursor) query.set('cursor', cursor);
  const page = await api(`/_cards/identities?${query}`);
  const rows = page.identities.map((item) =>
    el(
      'tr',
      { class: 'identity-row' },
      el(
        'td',
        {},
        el('a', { href: `#/identity/${encodeURIComponent(item.identity)}` }, item.identity),
      ),
      el('td', {}, item.cards),
      el('td', {}, item.live_chains),
      el('td', {}, item.revoked_chains),
    ),
  );
  show(
    el(
      'h2',
      {},
      `Identities `,
      el('span', { class: 'muted' }, `(${info.cards} cards in the registry)`),
    ),
    form,
    el('p'),
    el(
      'table',
      { id: 'identities' },
      el(
        'tr',
        {},
        el('th', {}, 'identity'),
        el('th', {}, 'cards'),
        el('th', {}, 'live chains'),
        el('th', {}, 'revoked chains'),
      ),
      rows,
    ),
    rows.length === 0 ? el('p', { class: 'muted' }, 'No identity matches.') : null,
    page.next_cursor
      ? el(
          'p',
          {},
          el(
            'button',
            { id: 'next', onclick: () => void identitiesView(prefix, page.next_cursor) },
            'Next page',
          ),
        )
      : null,
  );
}

// ---- one identity: its chains as a timeline ----------------------------------------------------

async function identityView(identity) {
  const history = await api(`/_cards/identities/${encodeURIComponent(identity)}`);
  const chains = history.chains.map((chain, i) =>
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
            el(
              'a',
              { href: `#/card/${encodeURIComponent(identity)}/${card.id}`, class: 'id' },
              short(card.id),
            ),
            el('br'),
            el('span', { class: 'badge' }, card.state),
            ' ',
            el('span', { class: 'muted' }, date(card.created_at)),
          ),
        ),
      ),
    ),
  );
  show(el('h2', {}, identity), el('div', { class: 'timeline' }, chains));
}

// ---- one card: snapshot, id recomputed, verdicts -----------------------------------------------

const base64 = (text) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
const SPKI_PREFIX = '302a300506032b6570032100';
const SIGNATURE_PREFIX = '3051300d060960864801650304020305000440';
const concat = (a, b) => {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
};

/** Ed25519 over SHA-512(snapshot ‖ extra), in the 83-byte DER wrapper (wire-facts section 1). */
function verdict(entry, snapshotBytes, keys) {
  const spki = keys[entry.signer];
  if (spki === undefined) return ['unchecked', `no key known for signer "${entry.signer}"`];
  if (spki === '') return ['invalid', 'the card has no public key'];
  try {
    const key = base64(spki);
    if (key.length !== 44 || hex(key.slice(0, 12)) !== SPKI_PREFIX)
      return ['invalid', 'not an Ed25519 key'];
    const signature = base64(entry.signature);
    if (signature.length !== 83 || hex(signature.slice(0, 19)) !== SIGNATURE_PREFIX)
      return ['invalid', 'not an 83-byte DER signature'];
    const extra = entry.snapshot ? base64(entry.snapshot) : new Uint8Array();
    const ok = ed25519.verify(
      signature.slice(19),
      sha512(concat(snapshotBytes, extra)),
      key.slice(12),
      { zip215: false },
    );
    return ok
      ? ['valid', 'signature verifies']
      : ['invalid', 'signature does not match the snapshot and key'];
  } catch (err) {
    return ['invalid', err.message];
  }
}

async function cardView(identity, id) {
  const history = await api(`/_cards/identities/${encodeURIComponent(identity)}`);
  const card = history.chains.flatMap((chain) => chain.cards).find((c) => c.id === id);
  if (!card) return show(el('p', { class: 'error' }, `No card ${id} for ${identity}.`));
  const bytes = base64(card.content_snapshot);
  const snapshot = JSON.parse(new TextDecoder().decode(bytes));
  const recomputed = hex(sha512(bytes).slice(0, 32));
  const keys = { self: snapshot.public_key ?? '', [info.signer]: info.service_key };
  const verdicts = card.signatures.map((entry) => {
    const [status, reason] = verdict(entry, bytes, keys);
    return el(
      'tr',
      { class: 'verdict', 'data-signer': entry.signer, 'data-status': status },
      el('td', {}, entry.signer),
      el('td', { class: `verdict-${status}` }, status),
      el('td', {}, reason),
    );
  });
  show(
    el('h2', {}, 'Card ', el('span', { class: 'id' }, card.id)),
    el(
      'p',
      {},
      el('a', { href: `#/identity/${encodeURIComponent(identity)}` }, `← ${identity}`),
      ' ',
      el('span', { class: 'badge' }, card.state),
    ),
    el(
      'p',
      { id: 'card-id' },
      recomputed === card.id
        ? el('span', { class: 'verdict-valid', 'data-status': 'valid' }, 'id recomputed: matches')
        : el(
            'span',
            { class: 'verdict-invalid', 'data-status': 'invalid' },
            `id recomputed: ${recomputed} (differs)`,
          ),
      el(
        'span',
        { class: 'muted' },
        ' (first 32 bytes of SHA-512 over the snapshot, computed in this browser)',
      ),
    ),
    el('h3', {}, 'Signatures (checked in this browser)'),
    el(
      'table',
      { id: 'verdicts' },
      el('tr', {}, el('th', {}, 'signer'), el('th', {}, 'verdict'), el('th', {}, 'why')),
      verdicts,
    ),
    el('h3', {}, 'Snapshot'),
    el('pre', { id: 'snapshot' }, JSON.stringify(snapshot, null, 2)),
    el(
      'p',
      { class: 'muted' },
      `created ${date(snapshot.created_at)}; previous ${card.previous_card_id ?? 'none'}; successor ${card.successor ?? 'none'}`,
    ),
  );
}

// ---- the request journal, refreshed ------------------------------------------------------------

async function requestsView() {
  const table = el('table', { id: 'requests' });
  show(
    el(
      'h2',
      {},
      'Requests ',
      el('span', { class: 'muted' }, '(refreshed every 2 s; tokens are never kept)'),
    ),
    table,
  );
  const refresh = async () => {
    const { requests, total } = await api('/_cards/requests?limit=100');
    table.replaceChildren(
      el(
        'tr',
        {},
        ['time', 'method', 'path', 'status', 'code', 'identity', 'ms'].map((h) => el('th', {}, h)),
      ),
      ...requests.map((r) =>
        el(
          'tr',
          { class: 'request' },
          [r.time, r.method, r.path, r.status, r.code ?? '', r.identity, r.ms].map((v) =>
            el('td', {}, v),
          ),
        ),
      ),
    );
    table.dataset.total = String(total);
  };
  await refresh();
  timer = setInterval(() => void refresh().catch(() => undefined), 2000);
}

// ---- routing -----------------------------------------------------------------------------------

async function route() {
  clearInterval(timer);
  const [, name, ...rest] = location.hash.replace(/^#/, '').split('/');
  try {
    info = await api('/_cards/info');
    document.getElementById('server').textContent =
      `${info.profile} profile · ${info.cards} cards · ${info.admin_auth === 'loopback-open' ? 'loopback: no token needed' : 'admin token'}`;
    if (name === 'identity') await identityView(decodeURIComponent(rest.join('/')));
    else if (name === 'card') await cardView(decodeURIComponent(rest[0] ?? ''), rest[1] ?? '');
    else if (name === 'requests') await requestsView();
    else await identitiesView();
  } catch (err) {
    if (err instanceof Unauthorized)
      askToken(
        sessionStorage.getItem(TOKEN_KEY)
          ? 'That token was refused. Paste the admin token again.'
          : undefined,
      );
    else show(el('p', { class: 'error' }, err.message));
  }
}

window.addEventListener('hashchange', () => void route());
void route();
