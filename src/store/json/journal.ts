/**
 * The JSON store's journal format and its replay.
 *
 * The journal is append-only JSON lines: a header line naming the format, then for each
 * durable write (a batch of cards under group commit) the cards' lines followed by one commit
 * line `{"commit":N}` with the number of cards in the batch, all in one write + fdatasync.
 * A card is acknowledged only after its batch is durable, so on replay:
 * - complete batches are kept;
 * - a batch with no commit line, or with a torn, zero-filled or unreadable line, and followed
 *   by nothing else, is the trace of a crash or power loss during the last write: none of its
 *   cards was acknowledged, and the whole batch is dropped (reported, never fatal);
 * - damage in any batch followed by a complete batch is real corruption: STORE_CORRUPT naming
 *   the line, every file left untouched.
 * A journal without the header (written before batches were marked) is read by the older rule:
 * a torn last line is ignored, any other unreadable line is corruption.
 */
import { corrupt, readStoredCard, serializeCard } from '../record.js';
import { readLines, type Line } from './line-reader.js';
import type { StoredCard } from '../store.js';
import { parseStoredLine } from '../stored-line.js';

export const JOURNAL_HEADER = '{"format":"cards-journal","version":2}';

const COMMIT = /^\{"commit":(\d+)\}$/;

/** The bytes of one durable write: the cards' lines and their commit line. */
export const batchText = (lines: readonly string[]): string =>
  `${lines.join('')}{"commit":${lines.length}}\n`;

/** The text of a new journal holding `cards` (already durable elsewhere) as one batch. */
export const journalText = (cards: readonly StoredCard[]): string =>
  `${JOURNAL_HEADER}\n${cards.length === 0 ? '' : batchText(cards.map((card) => `${serializeCard(card)}\n`))}`;

export interface Replay {
  /** The cards of complete batches, in order. */
  readonly cards: StoredCard[];
  /** Lines of a torn last batch that were dropped (never acknowledged). */
  readonly dropped: number;
  /** The journal held anything (a header at least): it must be folded in and removed. */
  readonly found: boolean;
}

/** One line as a card, or why it is not one. */
function cardOf(line: Line, path: string): StoredCard | string {
  const card = parseStoredLine(line.text);
  if (card) return card;
  try {
    return readStoredCard(JSON.parse(line.text), `line ${line.number} of the journal ${path}`);
  } catch (err) {
    return err instanceof SyntaxError
      ? `line ${line.number} is not valid JSON`
      : (err as Error).message;
  }
}

/** Reads the journal at `path` (absent: nothing), as a stream of lines. */
export async function replayJournal(path: string): Promise<Replay> {
  const cards: StoredCard[] = [];
  let format: 'marked' | 'legacy' | undefined;
  let batch: StoredCard[] = [];
  /** Lines of the write being read (its cards and damaged lines), not yet committed. */
  let open = 0;
  /** The first damaged line of the write being read. */
  let damage: string | undefined;
  /** A damaged write that had its commit line: fatal if anything follows it. */
  let closed: { damage: string; lines: number } | undefined;
  /** Legacy: an unreadable line, fatal if anything follows it. */
  let legacyBad: string | undefined;
  for await (const lines of readLines(path)) {
    for (const line of lines) {
      if (format === undefined) {
        format = line.text === JOURNAL_HEADER ? 'marked' : 'legacy';
        if (format === 'marked') continue;
      }
      if (format === 'legacy') {
        if (legacyBad !== undefined) throw corrupt(`the journal ${path}: ${legacyBad}`);
        if (line.text.trim() === '') continue;
        const card = cardOf(line, path);
        if (typeof card !== 'string') cards.push(card);
        else if (line.terminated) legacyBad = card;
        // else: a torn last line (the older rule): ignored
        continue;
      }
      // A write follows a damaged one: that one was acknowledged, so this is not a torn tail.
      if (closed)
        throw corrupt(`the journal ${path} is damaged before its last write: ${closed.damage}`);
      const commit = line.terminated ? COMMIT.exec(line.text) : null;
      if (commit) {
        if (damage === undefined && Number(commit[1]) !== batch.length)
          damage = `line ${line.number} commits ${commit[1]} cards, the write holds ${batch.length}`;
        if (damage === undefined) cards.push(...batch);
        else closed = { damage, lines: open + 1 };
        batch = [];
        open = 0;
        damage = undefined;
        continue;
      }
      open++;
      if (damage !== undefined) continue;
      const card = line.terminated ? cardOf(line, path) : `line ${line.number} is cut short`;
      if (typeof card === 'string') damage = card;
      else batch.push(card);
    }
  }
  if (legacyBad !== undefined) throw corrupt(`the journal ${path}: ${legacyBad}`);
  return { cards, dropped: open + (closed?.lines ?? 0), found: format !== undefined };
}
