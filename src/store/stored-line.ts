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
const LINE = new RegExp(
  String.raw`^\{"id":"([0-9a-f]{64})","identity":(${STR})` +
    String.raw`(?:,"previous_card_id":"([0-9a-f]{64})")?(,"revoking":true)?` +
    String.raw`,("content_snapshot":"([A-Za-z0-9+/=]+)","signatures":\[(?:${SIG}(?:,${SIG})*)?\]\})$`,
);

export class StoredLine implements StoredCard {
  readonly id: string;
  readonly identity: string;
  readonly previous_card_id?: string;
  readonly revoking?: true;
  /** A slice of the line (base64 holds no escapes): the log and the id check read it once each. */
  readonly content_snapshot: string;
  /** The card's line exactly as serializeCard wrote it. */
  readonly line: string;
  readonly #wireStart: number;
  #full: StoredCard | undefined;

  constructor(line: string, match: RegExpExecArray) {
    // Indexed rather than destructured: this runs once per stored card at start-up, cold.
    const previous = match[3];
    this.id = match[1] as string;
    const literal = match[2] as string;
    this.identity = literal.includes('\\') ? (JSON.parse(literal) as string) : literal.slice(1, -1);
    if (previous !== undefined) this.previous_card_id = previous;
    if (match[4] !== undefined) this.revoking = true;
    this.content_snapshot = match[6] as string;
    this.line = line;
    this.#wireStart = line.length - (match[5] as string).length;
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
  const match = LINE.exec(line);
  return match ? new StoredLine(line, match) : undefined;
}
