/**
 * Reading stored card records back: a shape check per record, cheap enough for 100,000 cards
 * at start-up (no base64, no snapshot parsing, no hashing: the derived fields were computed
 * when the card was accepted). Anything else is STORE_CORRUPT naming where, never a guess.
 */
import { CardsError } from '../core/errors.js';
import { isObject } from '../core/json.js';
import type { StoredCard } from './store.js';
import { StoredLine } from './stored-line.js';

const LOWER_ID = /^[0-9a-f]{64}$/;

/** Why `value` is not a stored card, or undefined when it is one. */
function recordProblem(value: unknown): string | undefined {
  if (!isObject(value)) return 'is not an object';
  const card = value;
  if (typeof card.id !== 'string' || !LOWER_ID.test(card.id))
    return 'has no valid "id" (64 lowercase hex characters)';
  if (typeof card.identity !== 'string' || card.identity === '') return 'has no "identity"';
  if (
    card.previous_card_id !== undefined &&
    (typeof card.previous_card_id !== 'string' || !LOWER_ID.test(card.previous_card_id))
  )
    return 'has an invalid "previous_card_id"';
  if (card.revoking !== undefined && card.revoking !== true)
    return 'has an invalid "revoking" (true or absent)';
  if (card.revoking === true && card.previous_card_id === undefined)
    return 'is a revoking card without "previous_card_id"';
  if (typeof card.content_snapshot !== 'string' || card.content_snapshot === '')
    return 'has no "content_snapshot"';
  if (!Array.isArray(card.signatures)) return 'has no "signatures" list';
  for (const entry of card.signatures as unknown[]) {
    if (
      !isObject(entry) ||
      typeof entry.signer !== 'string' ||
      typeof entry.signature !== 'string' ||
      (entry.snapshot !== undefined && typeof entry.snapshot !== 'string')
    )
      return 'has a signature entry without "signer" and "signature" strings';
  }
  return undefined;
}

/** Checks one record; `where` names it in the message ("card #12 of /data/cards.json"). */
export function readStoredCard(value: unknown, where: string): StoredCard {
  const problem = recordProblem(value);
  if (problem !== undefined) throw corrupt(`${where} ${problem}`);
  return value as unknown as StoredCard;
}

export const corrupt = (what: string): CardsError =>
  new CardsError('STORE_CORRUPT', `The store cannot be read: ${what}.`, {
    hint: 'The file was left untouched. Restore it from a backup, or point --db at another file.',
  });

/** One line of the journal and of the store file: the record with its keys in a fixed order. */
export function serializeCard(card: StoredCard): string {
  if (card instanceof StoredLine) return card.line;
  return JSON.stringify({
    id: card.id,
    identity: card.identity,
    previous_card_id: card.previous_card_id,
    revoking: card.revoking,
    content_snapshot: card.content_snapshot,
    signatures: card.signatures,
  });
}
