/**
 * Cards loaded from the store file or the journal, kept as the line they were written as.
 *
 * Start-up with 100,000 cards must be fast and small: instead of JSON.parse'ing every card into
 * objects, each line is checked against the exact shape serializeCard writes (a strict subset
 * of JSON, so a line that passes is valid JSON) and only the index fields are read out. The
 * wire object a GET returns and the content snapshot are slices of the line; the full record is
 * parsed on first use of the signatures. A line of any other shape (a hand-edited file) is not an
 * error here: the caller falls back to JSON.parse and its own checks.
 */
import type { StoredCard } from './store.js';

/** A JSON string literal (unrolled: fast on long base64 values). */
const STR = String.raw`"[^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*"`;
const SIG = String.raw`\{"signer":${STR},"signature":${STR}(?:,"snapshot":${STR})?\}`;
/**
 * A card line from where it starts (sticky): read in place, inside a whole chunk of a file. It
 * takes no record that record.ts's check refuses: the identity is not empty, and a revoking card
 * names the card it revokes.
 */
const LINE = new RegExp(
  String.raw`\{"id":"([0-9a-f]{64})","identity":(?!"")(${STR})` +
    String.raw`(?:,"previous_card_id":"([0-9a-f]{64})"(,"revoking":true)?)?` +
    String.raw`,"content_snapshot":"[A-Za-z0-9+/=]+","signatures":\[(?:${SIG}(?:,${SIG})*)?\]\}`,
  'y',
);
const COMMA = 0x2c;

/** Where the identity's JSON string starts: after `{"id":"<64 hex>","identity":`. */
const IDENTITY_AT = 84;
/** `,"previous_card_id":"<64 hex>"` and `,"revoking":true`. */
const PREVIOUS_LENGTH = 86;
const REVOKING_LENGTH = 16;
/** `"content_snapshot":"`, before the snapshot's base64. */
const SNAPSHOT_KEY_LENGTH = 20;

export class StoredLine implements StoredCard {
  readonly id: string;
  readonly identity: string;
  readonly previous_card_id?: string;
  readonly revoking?: true;
  /** The card's line exactly as serializeCard wrote it. */
  readonly line: string;
  /** Where `"content_snapshot":` starts in the line, and where the snapshot's base64 ends. */
  readonly #wireStart: number;
  readonly #snapshotEnd: number;
  #full: StoredCard | undefined;

  constructor(line: string, match: RegExpExecArray) {
    // Indexed rather than destructured: this runs once per stored card at start-up, cold. The
    // snapshot and the wire object are found by offset (the line's shape is fixed by LINE), so
    // no string is made of them until they are read.
    const previous = match[3];
    this.id = match[1] as string;
    const literal = match[2] as string;
    this.identity = literal.includes('\\') ? (JSON.parse(literal) as string) : literal.slice(1, -1);
    let at = IDENTITY_AT + literal.length + 1;
    if (previous !== undefined) {
      this.previous_card_id = previous;
      at += PREVIOUS_LENGTH;
    }
    if (match[4] !== undefined) {
      this.revoking = true;
      at += REVOKING_LENGTH;
    }
    this.line = line;
    this.#wireStart = at;
    this.#snapshotEnd = line.indexOf('"', at + SNAPSHOT_KEY_LENGTH);
  }

  /** Read by the log and the id check, once each: a slice of the line (base64 has no escapes). */
  get content_snapshot(): string {
    return this.line.slice(this.#wireStart + SNAPSHOT_KEY_LENGTH, this.#snapshotEnd);
  }

  get signatures(): StoredCard['signatures'] {
    return this.#parse().signatures;
  }

  /** `{"content_snapshot":…,"signatures":[…]}`: the wire object, without parsing. */
  get wireJson(): string {
    return `{${this.line.slice(this.#wireStart)}`;
  }

  #parse(): StoredCard {
    return (this.#full ??= JSON.parse(this.line) as StoredCard);
  }
}

/** The line as a StoredLine, or undefined when it is not exactly serializeCard's shape. */
export function parseStoredLine(line: string): StoredLine | undefined {
  LINE.lastIndex = 0;
  const match = LINE.exec(line);
  return match && match[0].length === line.length ? new StoredLine(line, match) : undefined;
}

/**
 * The card of the line `text` holds from `start` to `end`, when it is exactly serializeCard's
 * shape, or that followed by one ',' (the store file's separator: the caller tells which by the
 * card's `line.length`); undefined otherwise. The line is found in place, so no string is made
 * of it but the card's own.
 */
export function storedLineAt(text: string, start: number, end: number): StoredLine | undefined {
  LINE.lastIndex = start;
  const match = LINE.exec(text);
  if (!match) return undefined;
  const stop = start + match[0].length;
  if (stop !== end && (stop !== end - 1 || text.charCodeAt(stop) !== COMMA)) return undefined;
  return new StoredLine(match[0], match);
}
