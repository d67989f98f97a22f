/**
 * The request journal of the admin API: the last requests served, in memory, in a ring of fixed
 * size, so a busy server keeps constant memory and a push costs two slot writes (the request's
 * record as the stack made it, and its time): nothing is formatted until read. Never holds a
 * token: only the identity a verified card token carried ('admin' for the admin token, '' when
 * none). `recorder` records every request answered here and in the metrics.
 */
import { DEFAULT_JOURNAL_SIZE } from './server-limits.js';
import type { IncomingHttpHeaders } from 'node:http';
import { numberOf } from '../core/errors.js';
import type { RouteName } from '../core/routes.js';
import type { Metrics } from './metrics.js';
import type { Served } from './stack.js';

export interface JournalEntry {
  /** Its place among every request recorded since start, from 1 (`after` of the next poll). */
  readonly seq: number;
  /** ISO 8601. */
  readonly time: string;
  readonly method: string;
  readonly path: string;
  /** The route table's name of the route, '' for a path no route serves. */
  readonly route: string;
  /** 0 for a connection a fault dropped. */
  readonly status: number;
  /** The Error object's wire code (as a string), or null on success. */
  readonly code: string | null;
  readonly identity: string;
  readonly ms: number;
  /** What a fault rule did to the request (faults.ts); absent when none did. */
  readonly fault?: string;
}

/** What `last` keeps (every field optional): `cards requests --route --status --identity --since`. */
export interface JournalFilter {
  readonly route?: RouteName;
  /** An HTTP status, or its class (4 for 4xx). */
  readonly status?: { readonly exact: number } | { readonly class: number };
  readonly identity?: string;
  /** Answered at or after this time, ms since the epoch. */
  readonly since?: number;
  /** Recorded after this seq. */
  readonly after?: number;
}

const keeps = (filter: JournalFilter, served: Served, at: number): boolean =>
  (filter.route === undefined || served.route === filter.route) &&
  (filter.identity === undefined || served.identity === filter.identity) &&
  (filter.since === undefined || at >= filter.since) &&
  (filter.status === undefined ||
    ('exact' in filter.status
      ? served.status === filter.status.exact
      : Math.floor(served.status / 100) === filter.status.class));

export class RequestJournal {
  readonly #slots: (Served | undefined)[];
  /** When each slot's request was answered, ms since the epoch. */
  readonly #times: Float64Array;
  #next = 0;
  #total = 0;

  constructor(size = DEFAULT_JOURNAL_SIZE) {
    this.#slots = new Array<Served | undefined>(Math.max(1, size));
    this.#times = new Float64Array(this.#slots.length);
  }

  get size(): number {
    return this.#slots.length;
  }

  /** Requests recorded since start (the ring keeps the last `size`). */
  get total(): number {
    return this.#total;
  }

  push(served: Served, at: number): void {
    this.#slots[this.#next] = served;
    this.#times[this.#next] = at;
    this.#next = (this.#next + 1) % this.#slots.length;
    this.#total++;
  }

  /** The last `limit` entries `filter` keeps, newest first. */
  last(limit: number, filter: JournalFilter = {}): JournalEntry[] {
    const out: JournalEntry[] = [];
    const n = this.#slots.length;
    const first = Math.max(this.#total - n, filter.after ?? 0);
    for (let seq = this.#total; seq > first && out.length < limit; seq--) {
      const at = (this.#next - (this.#total - seq) - 1 + n) % n;
      const served = this.#slots[at];
      const time = this.#times[at] as number;
      if (!served || !keeps(filter, served, time)) continue;
      const { method, path, route, status, code, identity, ms, fault } = served;
      out.push({
        seq,
        time: new Date(time).toISOString(),
        method,
        path,
        route,
        status,
        code: code === '' ? null : String(numberOf(code)),
        identity,
        ms: Math.round(ms * 100) / 100,
        ...(fault !== '' && { fault }),
      });
    }
    return out;
  }
}

/**
 * Not journaled: the journal's own reads, scrapes, and the page and its files (they would push
 * out what matters).
 */
const UNJOURNALED = new Set<RouteName | ''>([
  'adminRequests',
  'pageAsset',
  'metrics',
  'page',
  'docs',
]);

/**
 * A request the page made (Fetch standard: a browser sends `Sec-Fetch-Site: same-origin` on a
 * fetch or load by a document of the same origin, and only the page and /docs are served from
 * this origin): not journaled either, so watching the journal does not fill it. The journal
 * is a view for debugging clients, not an audit log: a client that sends this header itself
 * only leaves itself out (metrics still count it).
 */
const fromThePage = (headers: IncomingHttpHeaders): boolean =>
  headers['sec-fetch-site'] === 'same-origin';

/** Records a request answered: in the metrics, and unless left out above in the journal. */
export const recorder =
  (journal: RequestJournal, metrics: Metrics) =>
  (served: Served, headers: IncomingHttpHeaders): void => {
    metrics.request(served.route, served.status, served.ms);
    if (!UNJOURNALED.has(served.route) && !fromThePage(headers)) journal.push(served, Date.now());
  };
