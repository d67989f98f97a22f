/**
 * The lines of an admin import (what GET /_cards/export writes, one stored record per line):
 * each read and checked as every import checks it (its shape, then card-defect.ts: id,
 * identity, previous card, self signature) and inserted in order, and a whole dump checked
 * before a restore touches anything. Knows nothing of HTTP.
 */
import { asClause, CardsError, isCardsError, reworded } from '../core/errors.js';
import { LIMITS } from '../core/limits.js';
import { MemoryStore } from '../store/memory/memory-store.js';
import type { KeyknoxStore } from '../store/keyknox.js';
import { serializeCard, readStoredCard } from '../store/record.js';
import { ImportError } from '../store/engine.js';
import { importInOrder } from '../store/import-cards.js';
import type { CardStore, StoredCard } from '../store/store.js';
import { cardDefect } from './card-defect.js';
import { badLine, KeyknoxImport } from './keyknox-transfer.js';

/** Export pages (each a run of lines) → the lines one by one. */
export function* toLines(pages: readonly string[]): Generator<string> {
  for (const page of pages) for (const line of page.split('\n')) if (line !== '') yield line;
}

/**
 * Characters of a dump that replaces the registry at most (LIMITS.answerMax, the most a
 * `cards snapshot save` reads): such a dump is held whole, with the cards it names, to be
 * checked before anything is touched, so without a bound one of 800 MB took a server to 3 GB.
 */
const REPLACE_MAX = LIMITS.answerMax;

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
  let chars = 0;
  for await (const line of lines) {
    number++;
    chars += line.length + 1;
    if (chars > REPLACE_MAX)
      throw new CardsError(
        'BODY_TOO_LARGE',
        `A dump that replaces the registry is held whole to be checked before the registry is touched: at most ${REPLACE_MAX} characters, the most \`cards snapshot save\` keeps; line ${number} is past it. The registry is unchanged.`,
        {
          hint: 'reset the registry, then import the dump into it (append=false), which holds no more than a line at a time',
        },
      );
    kept.push(line);
    if (line.trim() === '') continue;
    try {
      if (keyknoxLines.take(line, number)) {
        keyknoxLines.drop();
        continue;
      }
      await scratch.insert(await parseImportLine(line, number));
    } catch (err) {
      if (!isCardsError(err)) throw err;
      const what = err.code === 'IMPORT_INVALID' ? err.message : `Line ${number}: ${err.message}`;
      throw reworded(err, `${what} The registry is unchanged.`);
    }
  }
  return kept;
}

/** Line `number` of a dump → a stored card record (its shape only), or IMPORT_INVALID naming it. */
export function readImportRecord(line: string, number: number): StoredCard {
  const bad = (why: string): CardsError => badLine(number, why);
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw bad('is not valid JSON');
  }
  try {
    return readStoredCard(value, 'it');
  } catch (err) {
    throw bad(
      isCardsError(err) ? asClause(err.message.replace(/^The store cannot be read: it /, '')) : '',
    );
  }
}

/** One NDJSON line → a stored card whose derived fields agree with its snapshot. */
async function parseImportLine(line: string, number: number): Promise<StoredCard> {
  const bad = (why: string): CardsError => badLine(number, why);
  const card = readImportRecord(line, number);
  const defect = await cardDefect(card);
  if (defect) throw bad(`(card ${card.id}): ${asClause(defect)}`);
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

/**
 * How long a card whose id another import holds waits for that card to be stored, at most: a
 * write of the engines takes milliseconds, one PostgreSQL statement at most its timeout (5 s).
 */
const TAKEN_WAIT_MS = 10_000;
const TAKEN_POLL_MS = 20;

/** Inserts in flight at once when importing (they share the JSON store's group commit). */
const IMPORT_WINDOW = 256;

export interface ImportResult {
  readonly imported: number;
  /** Cards of the dump stored already, identically (an import with append run again). */
  readonly skipped: number;
  /** e3kit's Keyknox blobs and entries stored, and (append) found stored identically. */
  readonly keyknox: { readonly imported: number; readonly skipped: number };
}

/**
 * Inserts the lines of an import in order, up to IMPORT_WINDOW at once (they share the JSON
 * engine's group commit), a card naming one still being written after it; Keyknox lines are
 * stored together before the first card (and those after the cards at the end). With `append`,
 * a card stored already, identically, is skipped and counted. A refusal stops the import with
 * its line and what was stored.
 */
export async function insertLines(
  store: CardStore,
  keyknoxStore: KeyknoxStore | undefined,
  source: AsyncIterable<string> | Iterable<string>,
  append: boolean,
  /** A failure is undone by the caller: the message says nothing of cards that stay. */
  undone: boolean,
): Promise<ImportResult> {
  let imported = 0;
  let skipped = 0;
  let number = 0;
  const keyknox = new KeyknoxImport(keyknoxStore);
  /** The line of each card read, for the message of a refusal. */
  const lineOf = new WeakMap<StoredCard, number>();
  async function* cards(): AsyncGenerator<StoredCard> {
    let cardsBegun = false;
    for await (const line of source) {
      number++;
      if (line.trim() === '') continue;
      if (keyknox.take(line, number)) {
        if (keyknox.full) await keyknox.store(append);
        continue;
      }
      const card = await parseImportLine(line, number);
      if (!cardsBegun) {
        cardsBegun = true;
        await keyknox.store(append);
      }
      lineOf.set(card, number);
      yield card;
    }
  }
  const skipStored = async (card: StoredCard): Promise<boolean> => {
    const already = await storedAlready(store, card);
    if (already) skipped++;
    return already;
  };
  /**
   * A card refused because its id is taken by one another import is storing at the same time
   * (a rerun while the cut import's last lines are still being stored): skipped once that one is
   * stored, identically; refused as it was when it is not within TAKEN_WAIT_MS.
   */
  const skipTaken = async (card: StoredCard, err: unknown): Promise<boolean> => {
    if (!isCardsError(err) || err.code !== 'SNAPSHOT_NOT_UNIQUE') return false;
    for (let waited = 0; ; waited += TAKEN_POLL_MS) {
      if (await skipStored(card)) return true;
      if (waited >= TAKEN_WAIT_MS) return false;
      await new Promise((resolve) => setTimeout(resolve, TAKEN_POLL_MS));
    }
  };
  /** A refused insert as its line; anything else as it is. */
  const refusal = (err: unknown): unknown => {
    if (!(err instanceof ImportError)) return err;
    const { cause } = err;
    return isCardsError(cause)
      ? reworded(cause, `line ${lineOf.get(err.card)}: ${cause.message}`, { hint: undefined })
      : cause;
  };
  const counted = (err: unknown): CardsError => {
    if (undone)
      return isCardsError(err)
        ? err
        : new CardsError('STORE_UNAVAILABLE', undefined, { cause: err });
    const done = `${imported} card${imported === 1 ? '' : 's'} stored${append ? `, ${skipped} already there` : ''}`;
    const next =
      'they stay; fix the line and import the whole dump again, appending (cards import --append, or ?append=true)';
    if (!isCardsError(err)) return new CardsError('STORE_UNAVAILABLE', undefined, { cause: err });
    return reworded(err, `${err.message} (${done}: ${next}).`);
  };
  try {
    // A card naming a card still being written waits for it (the store links committed cards).
    await importInOrder(store, cards(), {
      window: IMPORT_WINDOW,
      stored: () => imported++,
      ...(append && { skip: skipStored, skipRefused: skipTaken }),
    });
    await keyknox.store(append);
  } catch (err) {
    throw counted(refusal(err));
  }
  return {
    imported,
    skipped,
    keyknox: { imported: keyknox.imported, skipped: keyknox.skipped },
  };
}

/** Whether `card` is stored already, byte for byte (a rerun of an import skips it). */
export async function storedAlready(store: CardStore, card: StoredCard): Promise<boolean> {
  const stored = await store.getCard(card.id);
  return stored !== undefined && serializeCard(stored.card) === serializeCard(card);
}
