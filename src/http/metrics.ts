/**
 * Metrics in the Prometheus text format (version 0.0.4) for GET /metrics: requests
 * by route and status, a latency histogram by route, store write latency, cards by state
 * (counted when scraped, a store page at a time) and Pythia's counts when it is served. Recording a request is a Map hit and a few
 * additions.
 */
import { droppedOutputWrites } from '../io/standard-streams.js';
import { CARD_STATES, type CardState } from '../core/chain.js';
import type { CardStore } from '../registry/registry.js';

/** Upper bounds in seconds (Prometheus's usual spread, tightened for a local server). */
const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

class Histogram {
  readonly counts = new Array<number>(BUCKETS.length).fill(0);
  count = 0;
  sum = 0;

  observe(seconds: number): void {
    this.count++;
    this.sum += seconds;
    for (let i = 0; i < BUCKETS.length; i++)
      if (seconds <= (BUCKETS[i] as number)) {
        this.counts[i] = (this.counts[i] as number) + 1;
        break;
      }
  }

  lines(name: string, labels: string): string[] {
    const out: string[] = [];
    let cumulative = 0;
    const sep = labels === '' ? '' : ',';
    BUCKETS.forEach((le, i) => {
      cumulative += this.counts[i] as number;
      out.push(`${name}_bucket{${labels}${sep}le="${le}"} ${cumulative}`);
    });
    out.push(`${name}_bucket{${labels}${sep}le="+Inf"} ${this.count}`);
    const braces = labels === '' ? '' : `{${labels}}`;
    out.push(`${name}_sum${braces} ${this.sum}`, `${name}_count${braces} ${this.count}`);
    return out;
  }
}

const label = (value: string): string =>
  value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');

export class Metrics {
  /** Requests by route, then by status (no key string built per request). */
  readonly #requests = new Map<string, Map<number, number>>();
  readonly #latency = new Map<string, Histogram>();
  readonly #writes = new Histogram();

  /** `route`: the route table's name ('' for an unknown path). */
  request(route: string, status: number, ms: number): void {
    let byStatus = this.#requests.get(route);
    if (!byStatus) this.#requests.set(route, (byStatus = new Map()));
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    let histogram = this.#latency.get(route);
    if (!histogram) this.#latency.set(route, (histogram = new Histogram()));
    histogram.observe(ms / 1000);
  }

  storeWrite(ms: number): void {
    this.#writes.observe(ms / 1000);
  }

  /** `pythia`: Pythia's counts (registry/pythia.ts), when e3kit's routes are served. */
  async render(
    store: CardStore,
    pythia?: { brainkeys: number; passwords: number; throttled: number },
  ): Promise<string> {
    const lines: string[] = [
      '# HELP cards_http_requests_total Requests served, by route name and HTTP status.',
      '# TYPE cards_http_requests_total counter',
    ];
    for (const [route, byStatus] of this.#requests)
      for (const [status, n] of byStatus)
        lines.push(
          `cards_http_requests_total{route="${label(route || 'unknown')}",status="${status}"} ${n}`,
        );
    lines.push(
      '# HELP cards_http_request_duration_seconds Time to serve a request, by route name.',
      '# TYPE cards_http_request_duration_seconds histogram',
    );
    for (const [route, histogram] of this.#latency)
      lines.push(
        ...histogram.lines(
          'cards_http_request_duration_seconds',
          `route="${label(route || 'unknown')}"`,
        ),
      );
    lines.push(
      '# HELP cards_store_write_duration_seconds Time for the store to insert a card durably.',
      '# TYPE cards_store_write_duration_seconds histogram',
      ...this.#writes.lines('cards_store_write_duration_seconds', ''),
      '# HELP cards_output_writes_dropped_total Writes to stdout or stderr (the request log, warnings) that failed and were dropped.',
      '# TYPE cards_output_writes_dropped_total counter',
      `cards_output_writes_dropped_total ${droppedOutputWrites()}`,
      '# HELP cards_cards Cards in the registry, by state.',
      '# TYPE cards_cards gauge',
    );
    const states = await countStates(store);
    for (const state of CARD_STATES) lines.push(`cards_cards{state="${state}"} ${states[state]}`);
    if (pythia)
      lines.push(
        '# HELP cards_pythia_requests_total Pythia requests answered, by route (brainkey, password).',
        '# TYPE cards_pythia_requests_total counter',
        `cards_pythia_requests_total{route="brainkey"} ${pythia.brainkeys}`,
        `cards_pythia_requests_total{route="password"} ${pythia.passwords}`,
        '# HELP cards_pythia_throttled_total Brainkey requests refused by the throttle (60007).',
        '# TYPE cards_pythia_throttled_total counter',
        `cards_pythia_throttled_total ${pythia.throttled}`,
      );
    return `${lines.join('\n')}\n`;
  }
}

async function countStates(store: CardStore): Promise<Record<CardState, number>> {
  const counts: Record<CardState, number> = {
    active: 0,
    superseded: 0,
    revoked: 0,
    revocation: 0,
  };
  let cursor: number | undefined;
  for (;;) {
    const page = await store.listCards(cursor, 10_000);
    for (const entry of page) counts[entry.state]++;
    if (page.length < 10_000) return counts;
    cursor = (page.at(-1) as { seq: number }).seq;
  }
}
