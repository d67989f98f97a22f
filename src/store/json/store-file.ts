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
import { readFile } from 'node:fs/promises';
import { replaceFile } from '../../io/fs-durable.js';
import { corrupt, readStoredCard, serializeCard } from '../record.js';
import type { StoredCard } from '../store.js';
import { fileSize, readChunks } from './line-reader.js';
import { storedLineAt, type StoredLine } from '../stored-line.js';

const STORE_FORMAT = 'cards-store';
const STORE_VERSION = 1;

/** Cards per chunk when writing: big enough to be fast, small enough to yield to requests. */
const CHUNK = 2000;

/** A file this large that is not in the line format cannot be one JSON string (V8's limit). */
const PLAIN_JSON_MAX = 400 * 1024 * 1024;

/** The file's lines, as storeChunks writes them (below), one card per line. */
const HEADER = ['{', `"format": "${STORE_FORMAT}",`, `"version": ${STORE_VERSION},`, '"cards": ['];
const FOOTER = [']', '}'];

/** Whether the line `chunk` holds from `start` to `end` is `expected`. */
const lineIs = (chunk: string, start: number, end: number, expected: string): boolean =>
  end - start === expected.length && chunk.startsWith(expected, start);

/**
 * The cards of a store file exactly as storeChunks writes it, streamed; undefined when the file
 * is shaped in any other way (then the caller parses it as plain JSON); 'blank' when it holds
 * only white space (`touch cards.json`: nothing to lose by starting it). Each card line is read
 * in place in its chunk of the file (stored-line.ts `storedLineAt`): only the cards' own strings
 * are made.
 */
async function readStoreLines(path: string): Promise<StoredLine[] | undefined | 'blank'> {
  const cards: StoredLine[] = [];
  let position = 0; // lines seen
  let comma: boolean | undefined; // whether the last card line ended with ',' (none yet: undefined)
  let footer = -1; // index into FOOTER once the cards ended
  let blank = true;
  for await (const { text: chunk, terminated } of readChunks(path)) {
    for (let start = 0; ;) {
      const newline = chunk.indexOf('\n', start);
      const end = newline === -1 ? chunk.length : newline;
      if (blank && chunk.slice(start, end).trim() === '') {
        if (newline === -1) break;
        start = newline + 1;
        continue;
      }
      blank = false;
      if (!terminated) return undefined;
      if (position < HEADER.length) {
        if (!lineIs(chunk, start, end, HEADER[position] as string)) return undefined;
      } else if (footer >= 0) {
        if (++footer >= FOOTER.length || !lineIs(chunk, start, end, FOOTER[footer] as string))
          return undefined;
      } else if (lineIs(chunk, start, end, FOOTER[0] as string)) {
        if (comma === true) return undefined;
        footer = 0;
      } else {
        if (comma === false) return undefined;
        const card = storedLineAt(chunk, start, end);
        if (!card) return undefined;
        cards.push(card);
        comma = start + card.line.length !== end;
      }
      position++;
      if (newline === -1) break;
      start = newline + 1;
    }
  }
  if (blank) return 'blank';
  return footer === FOOTER.length - 1 ? cards : undefined;
}

export class StoreFile {
  readonly path: string;
  /** Size of the file as last read or written, in bytes. */
  bytes = 0;
  /** Whether the last read found a store in the file (false: a new store). */
  found = false;

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
    this.bytes = await fileSize(this.path);
    if (this.bytes === 0) return [];
    const cards = await readStoreLines(this.path);
    if (cards === 'blank') return [];
    this.found = true;
    if (cards) return cards;
    if (this.bytes > PLAIN_JSON_MAX)
      throw corrupt(
        `${this.path} is not in the one-card-per-line format this store writes, and at ${this.bytes} bytes it is too large to read as plain JSON`,
      );
    const bytes = await readFile(this.path);
    const text = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
    return parseStoreText(text, this.path);
  }

  /** Replaces the file by one holding `cards` (src/io/fs-durable.ts: whole or not at all). */
  async write(cards: readonly StoredCard[]): Promise<void> {
    this.bytes = await replaceFile(this.path, storeChunks(cards));
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
    const lines: string[] = [];
    const end = Math.min(cards.length, start + CHUNK);
    for (let i = start; i < end; i++) lines.push(serializeCard(cards[i] as StoredCard));
    yield (start === 0 ? '\n' : ',\n') + lines.join(',\n');
  }
  yield `\n${FOOTER.join('\n')}\n`;
}
