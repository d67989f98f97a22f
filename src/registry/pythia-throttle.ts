/**
 * Pythia's rate limit, as the deployed service applies it: a caller asking too often is
 * refused with 60007 (429), and e3kit retries a brainkey exactly once, 2 s later, on that code.
 *
 * A token bucket per (operation, app, identity): `burst` requests at once, one more every
 * `refillMs` (the server's default, src/server/defaults.ts, lets e3kit's change of password ask
 * two brainkeys back to back, and always has a token for its retry 2 s later). Checked before the
 * pool, so a refused request costs no pairing. On an engine several servers share (PostgreSQL)
 * the buckets are the engine's (`RateBuckets`), so a caller spreading its requests over the
 * servers is counted once, as by the one deployed service; on an engine one server holds alone,
 * they live in a bounded LRU in that server.
 */
import { LRUCache } from 'lru-cache';
import { CardsError } from '../core/errors.js';
import type { RateBuckets } from '../store/engine.js';

export interface ThrottleSetting {
  readonly burst: number;
  readonly refillMs: number;
}

/** `off`, or `<burst>/<ms>` (`2/500`); undefined for anything else. */
export function parseThrottle(text: string): ThrottleSetting | 'off' | undefined {
  if (text === 'off') return 'off';
  const match = /^(\d{1,6})\/(\d{1,9})$/.exec(text);
  if (!match) return undefined;
  const burst = Number(match[1]);
  const refillMs = Number(match[2]);
  return burst >= 1 && refillMs >= 1 ? { burst, refillMs } : undefined;
}

export const formatThrottle = (setting: ThrottleSetting | 'off'): string =>
  setting === 'off' ? 'off' : `${String(setting.burst)}/${String(setting.refillMs)}`;

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * The buckets of one server that counts alone (memory, a locked JSON file), kept in a bounded
 * LRU. Made by the first take: lru-cache sets out room for all its entries when made (~9 ms of
 * CPU for 100,000), a cost a server nobody asks for Pythia need not pay at start-up.
 */
class ProcessRateBuckets implements RateBuckets {
  #made: LRUCache<string, Bucket> | undefined;

  constructor(readonly clock: () => number) {}

  take(key: string, burst: number, refillMs: number): Promise<boolean> {
    const now = this.clock();
    const buckets = (this.#made ??= new LRUCache<string, Bucket>({ max: 100_000 }));
    const bucket = buckets.get(key) ?? { tokens: burst, at: now };
    // A clock set back is no time at all, never negative time (store/postgres/sql.ts RATE_TAKE).
    const tokens = Math.min(burst, bucket.tokens + Math.max(0, now - bucket.at) / refillMs);
    const granted = tokens >= 1;
    buckets.set(key, { tokens: granted ? tokens - 1 : tokens, at: now });
    return Promise.resolve(granted);
  }

  giveBack(key: string, burst: number): Promise<void> {
    const bucket = this.#made?.get(key);
    if (bucket) bucket.tokens = Math.min(burst, bucket.tokens + 1);
    return Promise.resolve();
  }
}

export class PythiaThrottle {
  readonly #setting: ThrottleSetting | 'off';
  readonly #buckets: RateBuckets;
  #refused = 0;

  /**
   * `shared`: the engine's buckets, when several servers count together (engine.ts); else this
   * server's own, on `clock`.
   */
  constructor(
    setting: ThrottleSetting | 'off',
    clock: () => number = Date.now,
    shared?: RateBuckets,
  ) {
    this.#setting = setting;
    this.#buckets = shared ?? new ProcessRateBuckets(clock);
  }

  get setting(): ThrottleSetting | 'off' {
    return this.#setting;
  }

  /** Requests refused so far. */
  get refused(): number {
    return this.#refused;
  }

  /**
   * Takes a token for this caller's `op`, or throws PYTHIA_THROTTLED; returns what gives the
   * token back (a request refused for its input was not served).
   */
  async take(op: string, app: string, identity: string): Promise<() => void> {
    const setting = this.#setting;
    if (setting === 'off') return () => undefined;
    const key = JSON.stringify([op, app, identity]);
    const buckets = this.#buckets;
    if (!(await buckets.take(key, setting.burst, setting.refillMs))) {
      this.#refused++;
      throw new CardsError('PYTHIA_THROTTLED');
    }
    return () => void buckets.giveBack(key, setting.burst);
  }
}
