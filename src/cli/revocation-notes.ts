/**
 * The revoked chains this CLI revoked itself, so that `get` can still name a revoked card's
 * replacement and revoking card after search stops listing its chain (spec 4.3 rule 2). One JSON
 * line per revocation in CARDS_HOME/revoked-chains.jsonl: the service URL, the identity, and the
 * chain's cards as search listed them just before the revoke plus the revoking card the service
 * returned. A revoked chain never changes again (it can be neither extended nor revoked twice:
 * CHAIN_REVOKED, docs/errors.md), so a note stays true. It is a cache of facts, not a record
 * anything depends on: a lost or unreadable line only loses what `get` can say, so lines are
 * appended without fsync and a line that does not parse is skipped.
 */
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isRawCard, type RawCard } from '../core/card.js';
import { isObject } from '../core/json.js';

const notesFile = (home: string): string => join(home, 'revoked-chains.jsonl');

interface Note {
  readonly url: string;
  readonly identity: string;
  readonly cards: RawCard[];
}

/** Appends a revoked chain (its cards oldest first, then the revoking card when known). */
export function noteRevokedChain(
  home: string,
  url: string,
  identity: string,
  cards: readonly RawCard[],
): void {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const note: Note = { url, identity, cards: [...cards] };
  appendFileSync(notesFile(home), `${JSON.stringify(note)}\n`, { mode: 0o600 });
}

/** Every noted card of `identity`'s revoked chains on the service at `url`. */
export function notedCards(home: string, url: string, identity: string): RawCard[] {
  let text: string;
  try {
    text = readFileSync(notesFile(home), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const cards: RawCard[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let note: unknown;
    try {
      note = JSON.parse(line);
    } catch {
      continue;
    }
    if (!isObject(note) || note.url !== url || note.identity !== identity) continue;
    if (Array.isArray(note.cards)) cards.push(...note.cards.filter(isRawCard));
  }
  return cards;
}
