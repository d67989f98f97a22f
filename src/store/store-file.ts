/**
 * The store's main file, read and written through lowdb with this project's own adapter
 * (house habit 9: not JSONFilePreset, which swaps to memory under NODE_ENV=test).
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
 * STORE_CORRUPT and never overwritten. Writes replace the file atomically (fs-durable.ts).
 */
import { isAscii } from 'node:buffer';
import { readFile } from 'node:fs/promises';
import type { Adapter } from 'lowdb';
import { replaceFile } from '../io/fs-durable.js';
import { corrupt, readStoredCard, serializeCard } from './record.js';
import type { StoredCard } from './store.js';
import { parseStoreLines } from './stored-line.js';

export const STORE_FORMAT = 'cards-store';
export const STORE_VERSION = 1;

export interface StoreFileData {
  format: typeof STORE_FORMAT;
  version: typeof STORE_VERSION;
  cards: readonly StoredCard[];
}

/** Cards per chunk when writing: big enough to be fast, small enough to yield to requests. */
const CHUNK = 2000;

export class StoreFileAdapter implements Adapter<StoreFileData> {
  readonly path: string;
  /** Size of the file as last read or written, in bytes. */
  bytes = 0;
  /** Whether the last read found a store in the file (false: a new store). */
  found = false;

  constructor(path: string) {
    this.path = path;
  }

  /** The file's data; null when there is no file (a new store). Throws STORE_CORRUPT. */
  async read(): Promise<StoreFileData | null> {
    let bytes: Buffer;
    try {
      bytes = await readFile(this.path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    this.bytes = bytes.byteLength;
    // ASCII (the usual case) decodes as latin1 without UTF-8 work.
    const text = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
    // An empty file (`touch cards.json`) holds no cards: nothing to lose by starting it.
    if (text.trim() === '') return null;
    this.found = true;
    // Fast path: the file as this store writes it, one card per line (stored-line.ts).
    const cards = parseStoreLines(text);
    if (cards) return { format: STORE_FORMAT, version: STORE_VERSION, cards };
    return parseStoreText(text, this.path);
  }

  async write(data: StoreFileData): Promise<void> {
    this.bytes = await replaceFile(this.path, storeChunks(data.cards));
  }
}

export function parseStoreText(text: string, path: string): StoreFileData {
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
  return { format: STORE_FORMAT, version: STORE_VERSION, cards: cards as StoredCard[] };
}

function* storeChunks(cards: readonly StoredCard[]): Generator<string> {
  yield `{\n"format": "${STORE_FORMAT}",\n"version": ${STORE_VERSION},\n"cards": [`;
  for (let start = 0; start < cards.length; start += CHUNK) {
    const lines: string[] = [];
    const end = Math.min(cards.length, start + CHUNK);
    for (let i = start; i < end; i++) lines.push(serializeCard(cards[i] as StoredCard));
    yield (start === 0 ? '\n' : ',\n') + lines.join(',\n');
  }
  yield '\n]\n}\n';
}
