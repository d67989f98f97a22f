/**
 * The JSON engine's main file: read once when the store opens, rewritten whole (atomically, a
 * chunk of cards at a time) when the journal is folded in. Its cards live in the engine's index
 * (card-index.ts) in between, never in a document held beside them.
 *
 * Format, readable by a person (one card per line):
 *   {
 *   "format": "cards-store",
 *   "version": 1,
 *   "cards": [
 *   {"id":"…","identity":"alice","content_snapshot":"…","signatures":[…]},
 *   …
 *   ]
 *   }
 * A file of another format or a newer version, or one that does not parse, is refused with
 * STORE_CORRUPT and never overwritten. Writes replace the file atomically (src/io/fs-durable.ts).
 */
import { isAscii } from 'node:buffer';
import { openSync } from 'node:fs';
import { open, readFile, type FileHandle } from 'node:fs/promises';
import { replaceFile } from '../../io/fs-durable.js';
import { corrupt, readStoredCard, serializeCard } from '../record.js';
import type { StoredCard } from '../store.js';
import { FileLines } from './file-lines.js';
import { fileSize, readChunks } from './line-reader.js';
import { fileLine, movedLine, StoredLine } from '../stored-line.js';

const STORE_FORMAT = 'cards-store';
const STORE_VERSION = 1;

/** Cards per chunk when writing: big enough to be fast, small enough to yield to requests. */
const CHUNK = 2000;

/** A file this large that is not in the line format cannot be one JSON string (V8's limit). */
const PLAIN_JSON_MAX = 400 * 1024 * 1024;

/** The file's lines, as storeChunks writes them (below), one card per line. */
const HEADER = ['{', `"format": "${STORE_FORMAT}",`, `"version": ${STORE_VERSION},`, '"cards": ['];
const FOOTER = [']', '}'];
/** Where storeChunks puts the first card line. */
const FIRST_CARD_AT = Buffer.byteLength(HEADER.join('\n')) + 1;

const NEWLINE = 10;
const COMMA = 44;
const CLOSE_BRACKET = 93;

/** What readStoreLines found: the cards, and where their lines are (`lines`, to close). */
interface StoreLines {
  readonly cards: StoredLine[];
  readonly lines: FileLines;
}

/**
 * The cards of a store file exactly as storeChunks writes it, streamed, each card line checked
 * where it lies in the chunk's bytes and left in the file (stored-line.ts `fileLine`);
 * undefined when the file is shaped in any other way (then the caller parses it as plain JSON);
 * 'blank' when it holds only white space (`touch cards.json`: nothing to lose by starting it).
 */
async function readStoreLines(path: string): Promise<StoreLines | undefined | 'blank'> {
  const handle = await open(path, 'r');
  const lines = new FileLines(openSync(path, 'r'), 0);
  let found: StoreLines | undefined | 'blank';
  try {
    found = await readCardLines(handle, lines);
  } finally {
    await handle.close();
    if (typeof found !== 'object') lines.close();
  }
  return found;
}

async function readCardLines(
  handle: FileHandle,
  source: FileLines,
): Promise<StoreLines | undefined | 'blank'> {
  const cards: StoredLine[] = [];
  let position = 0; // lines seen
  let footer = -1; // index into FOOTER once the cards ended
  let blank = true;
  let base = -1; // where the first card line starts
  let more = false; // the last card line ended with a comma: another card must follow
  for await (const { bytes, offset, terminated } of readChunks(handle)) {
    const ascii = isAscii(bytes);
    for (let start = 0; start < bytes.length;) {
      const newline = terminated ? bytes.indexOf(NEWLINE, start) : bytes.length;
      const line = start;
      start = newline + 1;
      const card =
        !blank &&
        position >= HEADER.length &&
        footer < 0 &&
        !(newline === line + 1 && bytes[line] === CLOSE_BRACKET);
      if (card) {
        // A card line, checked as bytes; `,` ends every one but the last.
        if (!terminated || (cards.length > 0 && !more)) return undefined;
        more = bytes[newline - 1] === COMMA;
        if (base < 0) base = offset + line;
        const stored = fileLine(
          bytes,
          line,
          more ? newline - 1 : newline,
          ascii,
          source,
          offset + line - base,
        );
        if (!stored) return undefined;
        cards.push(stored);
      } else {
        const text = bytes.toString(ascii ? 'latin1' : 'utf8', line, newline);
        if (blank && text.trim() === '') continue;
        blank = false;
        if (!terminated) return undefined;
        if (position < HEADER.length) {
          if (text !== HEADER[position]) return undefined;
        } else if (footer >= 0) {
          if (++footer >= FOOTER.length || text !== FOOTER[footer]) return undefined;
        } else {
          if (more) return undefined; // the footer's "]" after a card line ending in ","
          footer = 0;
        }
      }
      position++;
    }
  }
  if (blank) return 'blank';
  if (footer !== FOOTER.length - 1) return undefined;
  source.rebase(base < 0 ? 0 : base);
  return { cards, lines: source };
}

export class StoreFile {
  readonly path: string;
  /** Size of the file as last read or written, in bytes. */
  bytes = 0;
  /** Whether the last read found a store in the file (false: a new store). */
  found = false;
  /** Where the lines of the cards read from the file are read (stored-line.ts). */
  #lines: FileLines | undefined;

  constructor(path: string) {
    this.path = path;
  }

  /**
   * The file's cards; none when there is no file or it is blank (a new store). Throws
   * STORE_CORRUPT. Read as a stream of lines (line-reader.ts), so any file this store wrote
   * opens, however large; a file in any other shape (reformatted by a person) is parsed as
   * plain JSON when it fits in one string.
   */
  async read(): Promise<readonly StoredCard[]> {
    this.close();
    this.bytes = await fileSize(this.path);
    if (this.bytes === 0) return [];
    const found = await readStoreLines(this.path);
    if (found === 'blank') return [];
    this.found = true;
    if (found) {
      this.#lines = found.lines;
      return found.cards;
    }
    if (this.bytes > PLAIN_JSON_MAX)
      throw corrupt(
        `${this.path} is not in the one-card-per-line format this store writes, and at ${this.bytes} bytes it is too large to read as plain JSON`,
      );
    const bytes = await readFile(this.path);
    const text = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
    return parseStoreText(text, this.path);
  }

  /**
   * Replaces the file by one holding `cards` (src/io/fs-durable.ts: whole or not at all). The
   * cards read from the file, if any, come first in `cards` and in the same order: their lines
   * keep their places after the header, and they are read from the new file.
   */
  async write(cards: readonly StoredCard[]): Promise<void> {
    this.bytes = await replaceFile(this.path, storeChunks(cards));
    this.#lines?.moveTo(this.path, FIRST_CARD_AT);
  }

  /**
   * The cards read from the file are not read any more: before a write that does not begin
   * with them (the store emptied), and when the store closes.
   */
  close(): void {
    this.#lines?.close();
    this.#lines = undefined;
  }
}

function parseStoreText(text: string, path: string): readonly StoredCard[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw corrupt(`${path} is not valid JSON`);
  }
  const data = json as Partial<Record<string, unknown>> | null;
  if (typeof data !== 'object' || data === null || data.format !== STORE_FORMAT)
    throw corrupt(`${path} is not a cards store (no "format": "${STORE_FORMAT}")`);
  const { version } = data;
  if (typeof version === 'number' && Number.isInteger(version) && version > STORE_VERSION)
    throw corrupt(
      `${path} has format version ${version}, written by a newer cards; this one reads version ${STORE_VERSION}. Upgrade cards to open it`,
    );
  if (version !== STORE_VERSION) throw corrupt(`${path} has an unknown format version`);
  if (!Array.isArray(data.cards)) throw corrupt(`${path} has no "cards" list`);
  const cards = data.cards as unknown[];
  for (let i = 0; i < cards.length; i++) readStoredCard(cards[i], `card #${i + 1} of ${path}`);
  return cards as StoredCard[];
}

function* storeChunks(cards: readonly StoredCard[]): Generator<string> {
  yield HEADER.join('\n');
  for (let start = 0; start < cards.length; start += CHUNK) {
    const end = Math.min(cards.length, start + CHUNK);
    yield (start === 0 ? '\n' : ',\n') + joinLines(cards, start, end);
  }
  yield `\n${FOOTER.join('\n')}\n`;
}

/**
 * The lines of cards `from` to `to` joined by ",\n", as the file holds them: a run of cards
 * whose lines lie one after the other in the file read is read in one piece.
 */
function joinLines(cards: readonly StoredCard[], from: number, to: number): string {
  const parts: string[] = [];
  for (let i = from; i < to;) {
    const first = cards[i] as StoredCard;
    const source = first instanceof StoredLine ? first.source : undefined;
    if (!source || !(first instanceof StoredLine)) {
      parts.push(serializeCard(first));
      i++;
      continue;
    }
    let last = first;
    for (i++; i < to; i++) {
      const next = cards[i];
      if (!(next instanceof StoredLine) || next.source !== source) break;
      if (next.offset !== last.offset + last.length + 2) break; // after last's ",\n"
      last = next;
    }
    const text = source.read(first.offset, last.offset + last.length - first.offset);
    // Lines hold no raw newline (JSON escapes it): the last one starts after the last '\n'.
    if (!text.startsWith(`{"id":"${first.id}"`)) throw movedLine(first.id);
    if (!text.startsWith(`{"id":"${last.id}"`, text.lastIndexOf('\n') + 1))
      throw movedLine(last.id);
    parts.push(text);
  }
  return parts.join(',\n');
}
