/**
 * Moving a registry between stores (`cards export` / `cards import`): NDJSON, one
 * stored record per line exactly as the JSON store writes it (store/record.ts serializeCard),
 * in insertion order, streaming both ways (a page or a batch of cards in memory, never the
 * store), so a move is byte-identical and JSON → PostgreSQL → JSON gives the same store file.
 *
 * Import checks every card before it is stored: its record's shape, its id (the SHA-256 of its
 * snapshot, spec 2.4), the snapshot's identity, previous card and revoking flag against the
 * record, and the self signature of a card with a key (spec 2.3); the chain rules are the
 * store's atomic insert's (src/core/chain.ts), card by card, through the engine's bulk import
 * (src/store/engine.ts). The service signature is kept as it is: it was made by the service the
 * cards come from.
 */
import { asClause, CardsError, reworded } from '../core/errors.js';
import { serializeCard } from '../store/record.js';
import { ImportError, type Engine } from '../store/engine.js';
import type { KeyknoxStore } from '../store/keyknox.js';
import type { CardStore, StoredCard } from '../store/store.js';
import { parseStoredLine } from '../store/stored-line.js';
import { cardDefect } from './card-defect.js';
import { readImportRecord, storedAlready } from './import-lines.js';
import { exportKeyknox, KeyknoxImport } from './keyknox-transfer.js';

const PAGE = 1000;

/**
 * A dump's text: e3kit's Keyknox entries (keyknox-transfer.ts), then every card, one line each,
 * in insertion order, a page of cards at a time; `counted` is told each page's count of cards.
 */
export async function* dumpText(
  store: CardStore,
  keyknox: KeyknoxStore | undefined,
  counted: (cards: number) => void = () => undefined,
): AsyncGenerator<string> {
  if (keyknox) yield* exportKeyknox(keyknox);
  for (let from = 0; ;) {
    const page = await store.scan(from, PAGE);
    if (page.length > 0) yield page.map((card) => `${serializeCard(card)}\n`).join('');
    counted(page.length);
    from += page.length;
    if (page.length < PAGE) return;
  }
}

/** Writes the engine's dump (dumpText); resolves with the count of cards. */
export async function exportCards(
  engine: Pick<Engine, 'cards' | 'keyknox'>,
  write: (chunk: string) => Promise<void>,
): Promise<number> {
  let cards = 0;
  for await (const chunk of dumpText(engine.cards, engine.keyknox, (n) => (cards += n)))
    await write(chunk);
  return cards;
}

/**
 * Line `number` of a dump → a checked stored card: IMPORT_INVALID for a line that is no record
 * (as an import through a server says), VERIFICATION_FAILED for a card that does not verify.
 */
async function verifiedCard(line: string, number: number, where: string): Promise<StoredCard> {
  const card = parseStoredLine(line) ?? readImportRecord(line, number);
  const defect = await cardDefect(card);
  if (defect)
    throw new CardsError('VERIFICATION_FAILED', `${where} (card ${card.id}): ${asClause(defect)}.`);
  return card;
}

export interface ImportOptions {
  /** Add to a store that holds cards already, one card at a time (each checked against them). */
  readonly append?: boolean;
}

/** What an import stored, and (append) what it found stored already, identically. */
export interface ImportCount {
  readonly imported: number;
  readonly skipped: number;
}

/**
 * Stores the dump's cards in order, each checked first (verifiedCard); resolves with how many.
 * Into an empty store they go by the engine's bulk import; with `append`, one at a time, a card
 * stored already identically skipped and counted (so a cut import run again completes). Its
 * Keyknox lines are checked as read and stored together before the first card, those after
 * the cards at the end (keyknox-transfer.ts).
 */
export async function importCards(
  engine: Engine,
  lines: AsyncIterable<string>,
  options: ImportOptions = {},
): Promise<ImportCount> {
  // Start listening before the first await: a readline interface emits the lines it has read
  // whether or not anyone iterates yet, and lines emitted before that are lost.
  const iterator = lines[Symbol.asyncIterator]();
  const store = engine.cards;
  const existing = await store.count();
  if (existing > 0 && !options.append)
    throw new CardsError(
      'STORE_NOT_EMPTY',
      `The store ${store.location} holds ${existing} cards already; import into an empty store, or pass --append to add the cards one by one with the registry's rules.`,
    );
  let n = 0;
  let physical = 0;
  const keyknox = new KeyknoxImport(engine.keyknox);
  async function* cards(): AsyncGenerator<StoredCard> {
    for await (const line of { [Symbol.asyncIterator]: () => iterator }) {
      physical++;
      if (line.trim() === '') continue;
      if (keyknox.take(line, physical)) {
        if (keyknox.full) await keyknox.store(options.append === true);
        continue;
      }
      if (n === 0) await keyknox.store(options.append === true);
      n++;
      yield await verifiedCard(line, physical, `line ${n} of the dump`);
    }
    await keyknox.store(options.append === true);
  }
  const named = (err: unknown, line: number, card: StoredCard): never => {
    if (err instanceof CardsError)
      throw reworded(err, `line ${line} of the dump (card ${card.id}): ${err.message}`, {
        hint: undefined,
      });
    throw err;
  };
  if (options.append) {
    // A card stored already, byte for byte (a rerun of a cut import), is skipped and counted.
    let imported = 0;
    let skipped = 0;
    for await (const card of cards()) {
      if (await storedAlready(store, card)) skipped++;
      else {
        await store.insert(card).catch((err) => named(err, n, card));
        imported++;
      }
    }
    return { imported, skipped };
  }
  try {
    return { imported: await engine.importCards(cards()), skipped: 0 };
  } catch (err) {
    if (err instanceof ImportError) named(err.cause, err.index + 1, err.card);
    throw err;
  }
}
