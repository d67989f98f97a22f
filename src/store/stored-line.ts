/**
 * Cards loaded from the store file or the journal, kept as the line they were written as.
 *
 * Start-up with 100,000 cards must be fast and small: instead of JSON.parse'ing every card into
 * objects, each line is checked against the exact shape serializeCard writes (a strict subset
 * of JSON, so a line that passes is valid JSON) and only the index fields are read out. The
 * wire object a GET returns and the content snapshot are slices of the line; the full record is
 * parsed on first use of the signatures. A line of any other shape (a hand-edited file) is not an
 * error here: the caller falls back to JSON.parse and its own checks.
 *
 * A card of the store file need not hold its line at all: it keeps where the line is
 * (a LineSource, an offset and a length) and reads it on first use, so that opening a store
 * makes strings of its index fields only.
 */
import { CardsError } from '../core/errors.js';
import type { StoredCard } from './store.js';

/** A JSON string literal (unrolled: fast on long base64 values). */
const STR = String.raw`"[^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*"`;
const SIG = String.raw`\{"signer":${STR},"signature":${STR}(?:,"snapshot":${STR})?\}`;
const LINE = new RegExp(
  String.raw`^\{"id":"([0-9a-f]{64})","identity":(${STR})` +
    String.raw`(?:,"previous_card_id":"([0-9a-f]{64})")?(,"revoking":true)?` +
    String.raw`,("content_snapshot":"([A-Za-z0-9+/=]+)","signatures":\[(?:${SIG}(?:,${SIG})*)?\]\})$`,
);

/** Byte offsets in a line of LINE's shape: `{"id":"` and `","identity":` are fixed. */
const ID_START = 7;
const IDENTITY_START = 84;
/** From the end of the identity literal to the previous card id: `,"previous_card_id":"`. */
const PREVIOUS_AFTER_IDENTITY = 21;
/** `"content_snapshot":"` */
const SNAPSHOT_KEY = 20;

/** The lines of a store file, read on demand (src/store/json/file-lines.ts). */
export interface LineSource {
  /** The line at `offset` (bytes from the first card line), `length` bytes, without its comma. */
  read(offset: number, length: number): string;
}

export class StoredLine implements StoredCard {
  readonly id: string;
  readonly identity: string;
  readonly previous_card_id?: string;
  readonly revoking?: true;
  #line: string | undefined;
  readonly #source: LineSource | undefined;
  readonly #offset: number;
  readonly #length: number;
  /** Where `"content_snapshot":` starts in the line; -1 until the line is read. */
  #wireStart = -1;
  #full: StoredCard | undefined;

  /** Use parseStoredLine, or fileLine for a line left in its file. */
  constructor(
    id: string,
    identity: string,
    previous: string | undefined,
    revoking: boolean,
    line: string | undefined,
    source?: LineSource,
    offset = 0,
    length = 0,
  ) {
    // Positional rather than an object: this runs once per stored card at start-up, cold.
    this.id = id;
    this.identity = identity;
    if (previous !== undefined) this.previous_card_id = previous;
    if (revoking) this.revoking = true;
    this.#line = line;
    this.#source = source;
    this.#offset = offset;
    this.#length = length;
  }

  /** Makes sure the line is held (the card is handed out, and may be read after the store closes). */
  load(): this {
    this.#line ??= this.#read();
    return this;
  }

  /** The store file the line was read from (its place: offset, length), if any. */
  get source(): LineSource | undefined {
    return this.#source;
  }

  get offset(): number {
    return this.#offset;
  }

  get length(): number {
    return this.#length;
  }

  /** The card's line exactly as serializeCard wrote it, read from its file on first use. */
  get line(): string {
    return (this.#line ??= this.#read());
  }

  /** The line, without keeping it when it is not held yet (a pass over every card). */
  text(): string {
    return this.#line ?? this.#read();
  }

  /** A slice of the line (base64 holds no escapes): the log and the id check read it once each. */
  get content_snapshot(): string {
    return snapshotOf(this.line, this.#wireAt());
  }

  /** The snapshot, without keeping the line when it is not held yet. */
  snapshot(): string {
    if (this.#line !== undefined) return this.content_snapshot;
    const text = this.#read();
    return snapshotOf(text, wireStartOf(text));
  }

  get signatures(): StoredCard['signatures'] {
    return this.#parse().signatures;
  }

  /** `{"content_snapshot":…,"signatures":[…]}`: the wire object, without parsing. */
  get wireJson(): string {
    return `{${this.line.slice(this.#wireAt())}`;
  }

  #wireAt(): number {
    if (this.#wireStart < 0) this.#wireStart = wireStartOf(this.line);
    return this.#wireStart;
  }

  #parse(): StoredCard {
    return (this.#full ??= JSON.parse(this.line) as StoredCard);
  }

  /** The line from its source, checked to be this card's: a file changed under the server is refused. */
  #read(): string {
    const source = this.#source as LineSource;
    const text = source.read(this.#offset, this.#length);
    const match = LINE.exec(text);
    if (!match || match[1] !== this.id) throw movedLine(this.id);
    return text;
  }
}

/** A line read from the store file is not the card's any more: the file changed under the server. */
export const movedLine = (id: string): CardsError =>
  new CardsError(
    'STORE_CORRUPT',
    `The store file was changed under the server: card ${id} is no longer where it was read.`,
    { hint: 'Stop the server, restore the file from a backup and start it again.' },
  );

const wireStartOf = (line: string): number => line.indexOf(',"content_snapshot":"') + 1;

const snapshotOf = (line: string, wireStart: number): string =>
  line.slice(wireStart + SNAPSHOT_KEY, line.indexOf('"', wireStart + SNAPSHOT_KEY));

/** The literal's text, unescaped. */
const identityOf = (literal: string): string =>
  literal.includes('\\') ? (JSON.parse(literal) as string) : literal.slice(1, -1);

/** The line as a StoredLine, or undefined when it is not exactly serializeCard's shape. */
export function parseStoredLine(line: string): StoredLine | undefined {
  const match = LINE.exec(line);
  if (!match) return undefined;
  const literal = match[2] as string;
  return new StoredLine(
    match[1] as string,
    identityOf(literal),
    match[3],
    match[4] !== undefined,
    line,
  );
}

/**
 * A card line of the store file at start-up, `bytes` from `start` to `end` (`ascii`: they hold
 * no byte above 127), left in the file at `offset` of `source`: only its index fields are kept,
 * as strings of their own (a slice of the decoded line would hold all of it), so opening a
 * store makes no lasting string of a card's snapshot or signatures. Undefined when it is not
 * exactly serializeCard's shape.
 */
export function fileLine(
  bytes: Buffer,
  start: number,
  end: number,
  ascii: boolean,
  source: LineSource,
  offset: number,
): StoredLine | undefined {
  const match = LINE.exec(bytes.toString(ascii ? 'latin1' : 'utf8', start, end));
  if (!match) return undefined;
  const literal = match[2] as string;
  const literalBytes = ascii ? literal.length : Buffer.byteLength(literal);
  const previousAt = start + IDENTITY_START + literalBytes + PREVIOUS_AFTER_IDENTITY;
  return new StoredLine(
    bytes.toString('latin1', start + ID_START, start + ID_START + 64),
    ascii && !literal.includes('\\')
      ? bytes.toString(
          'latin1',
          start + IDENTITY_START + 1,
          start + IDENTITY_START + literalBytes - 1,
        )
      : (JSON.parse(literal) as string),
    match[3] === undefined ? undefined : bytes.toString('latin1', previousAt, previousAt + 64),
    match[4] !== undefined,
    undefined,
    source,
    offset,
    end - start,
  );
}
