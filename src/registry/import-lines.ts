/**
 * The lines of an admin import (what GET /_cards/export writes, one stored record per line):
 * each read and checked as every import checks it (its shape, then card-defect.ts: id,
 * identity, previous card, self signature), and a whole dump checked before a restore touches
 * anything. Knows nothing of HTTP.
 */
import { CardsError, isCardsError } from '../core/errors.js';
import { MemoryStore } from '../store/memory/memory-store.js';
import type { KeyknoxStore } from '../store/keyknox.js';
import { readStoredCard } from '../store/record.js';
import type { StoredCard } from '../store/store.js';
import { cardDefect } from './card-defect.js';
import { KeyknoxImport } from './keyknox-transfer.js';

/** Export pages (each a run of lines) → the lines one by one. */
export function* toLines(pages: readonly string[]): Generator<string> {
  for (const page of pages) for (const line of page.split('\n')) if (line !== '') yield line;
}

/**
 * The lines of a whole dump, once each has passed what an import into an empty registry checks:
 * its record (parseImportLine) and the chain rules, by inserting it into a throwaway memory store.
 * The first refusal names its line as the import would.
 */
export async function checkedDump(
  lines: AsyncIterable<string>,
  keyknox: KeyknoxStore | undefined,
): Promise<string[]> {
  const kept: string[] = [];
  const scratch = new MemoryStore();
  const keyknoxLines = new KeyknoxImport(keyknox);
  let number = 0;
  for await (const line of lines) {
    number++;
    kept.push(line);
    if (line.trim() === '') continue;
    try {
      if (keyknoxLines.take(line, number)) continue;
      await scratch.insert(parseImportLine(line, number));
    } catch (err) {
      if (!isCardsError(err)) throw err;
      const what = err.code === 'IMPORT_INVALID' ? err.message : `Line ${number}: ${err.message}`;
      throw new CardsError(err.code, `${what} The registry is unchanged.`, {
        ...(err.hint !== undefined && { hint: err.hint }),
      });
    }
  }
  return kept;
}

/** One NDJSON line → a stored card whose derived fields agree with its snapshot. */
export function parseImportLine(line: string, number: number): StoredCard {
  const bad = (why: string): CardsError =>
    new CardsError('IMPORT_INVALID', `Import line ${number} ${why}.`, {
      hint: 'Import what `cards export` or GET /_cards/export wrote, one record per line.',
    });
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw bad('is not valid JSON');
  }
  let card: StoredCard;
  try {
    card = readStoredCard(value, 'it');
  } catch (err) {
    throw bad(isCardsError(err) ? err.message.replace(/^The store cannot be read: it /, '') : '');
  }
  const defect = cardDefect(card);
  if (defect) throw bad(`(card ${card.id}): ${defect.replace(/[.]$/, '')}`);
  // Keep only the record's own fields (a line may carry unknown keys).
  return {
    id: card.id,
    identity: card.identity,
    ...(card.previous_card_id !== undefined && { previous_card_id: card.previous_card_id }),
    ...(card.revoking === true && { revoking: true as const }),
    content_snapshot: card.content_snapshot,
    signatures: card.signatures,
  };
}
