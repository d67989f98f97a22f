// One card: its snapshot, its id recomputed and its signatures checked in this browser, each
// extra snapshot decoded as `cards get` shows it (UTF-8 text). Location hash:
// #/card/<identity segment>/<card id>[?form=json].
import { history, identityRef } from './api.js';
import { data, date, el } from './dom.js';
import { visible, visibleJson } from './text.js';
import { base64, cardId, verdict } from './verdict.js';

/** The snapshot's JSON, or the reason it has none (the store takes imports unchecked). */
function parseSnapshot(bytes) {
  try {
    const value = JSON.parse(new TextDecoder().decode(bytes));
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? { value }
      : { error: 'the snapshot is not a JSON object' };
  } catch (err) {
    return { error: `the snapshot is not JSON (${err.message})` };
  }
}

/** An extra snapshot as text, as `cards get` shows it (UTF-8, written out). */
function extraText(entry) {
  if (!entry.snapshot) return null;
  try {
    return visible(new TextDecoder().decode(base64(entry.snapshot)));
  } catch {
    return `(not base64: ${visible(entry.snapshot)})`;
  }
}

export async function cardView(identity, id, info) {
  const found = await history(identity);
  const card = found.chains.flatMap((chain) => chain.cards).find((c) => c.id === id);
  const { segment, query } = identityRef(identity);
  const back = el('a', { href: `#/identity/${segment}${query}` }, '← ', data(identity));
  if (!card)
    return [el('p', { class: 'error' }, 'No card ', data(id), ' for ', data(identity), '.'), back];
  const bytes = base64(card.content_snapshot);
  const snapshot = parseSnapshot(bytes);
  const recomputed = cardId(bytes);
  const publicKey = snapshot.value?.public_key;
  const keys = new Map([
    ['self', typeof publicKey === 'string' ? publicKey : ''],
    [info.signer, info.service_key],
  ]);
  const verdicts = (card.signatures ?? []).map((entry) => {
    const [status, reason] = verdict(entry, bytes, keys);
    return el(
      'tr',
      { class: 'verdict', 'data-signer': entry.signer, 'data-status': status },
      el('td', {}, data(entry.signer)),
      el('td', { class: `verdict-${status}` }, status),
      el('td', {}, visible(reason)),
      el('td', { class: 'extra' }, extraText(entry)),
    );
  });
  return [
    el('h2', {}, 'Card ', el('span', { class: 'id' }, data(card.id))),
    el('p', {}, back, ' ', el('span', { class: 'badge' }, card.state)),
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
      el(
        'tr',
        {},
        el('th', {}, 'signer'),
        el('th', {}, 'verdict'),
        el('th', {}, 'why'),
        el('th', {}, 'extra snapshot'),
      ),
      verdicts,
    ),
    el('h3', {}, 'Snapshot'),
    snapshot.error
      ? el('p', { class: 'error', id: 'snapshot' }, snapshot.error)
      : el('pre', { id: 'snapshot' }, visibleJson(snapshot.value)),
    el(
      'p',
      { class: 'muted' },
      'created ',
      date(snapshot.value?.created_at),
      '; previous ',
      card.previous_card_id ? data(card.previous_card_id) : 'none',
      '; successor ',
      card.successor ? data(card.successor) : 'none',
    ),
  ];
}
