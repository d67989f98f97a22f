/**
 * The request journal of the admin API: the last requests served, in memory, in a
 * ring of fixed size, so a busy server keeps constant memory and a push costs one slot write.
 * Never holds a token: only the identity a verified card token carried ('admin' for the admin
 * token, '' when none).
 */
export interface JournalEntry {
  /** ISO 8601. */
  readonly time: string;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  /** The Error object's wire code (as a string), or null on success. */
  readonly code: string | null;
  readonly identity: string;
  readonly ms: number;
}

/** What a request records: its time as a number; the ISO text is made only when read. */
export type JournalRecord = Omit<JournalEntry, 'time'> & { readonly at: number };

export class RequestJournal {
  readonly #slots: (JournalRecord | undefined)[];
  #next = 0;
  #total = 0;

  constructor(size = 1000) {
    this.#slots = new Array<JournalRecord | undefined>(Math.max(1, size));
  }

  get size(): number {
    return this.#slots.length;
  }

  /** Requests recorded since start (the ring keeps the last `size`). */
  get total(): number {
    return this.#total;
  }

  /** One slot write per request: nothing is formatted here (the hot path of every route). */
  push(entry: JournalRecord): void {
    this.#slots[this.#next] = entry;
    this.#next = (this.#next + 1) % this.#slots.length;
    this.#total++;
  }

  /** The last `limit` entries, newest first. */
  last(limit: number): JournalEntry[] {
    const out: JournalEntry[] = [];
    const n = this.#slots.length;
    for (let i = 1; i <= Math.min(limit, n, this.#total); i++) {
      const record = this.#slots[(this.#next - i + n) % n];
      if (!record) continue;
      const { at, ...rest } = record;
      out.push({ time: new Date(at).toISOString(), ...rest });
    }
    return out;
  }

  clear(): void {
    this.#slots.fill(undefined);
    this.#next = 0;
  }
}
