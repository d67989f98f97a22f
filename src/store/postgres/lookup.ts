/**
 * Lookups by key that arrive together share one query (the PostgreSQL store's reads): a get by
 * id or a search by identity asks for its keys, and the keys asked while `maxInFlight` queries
 * are already out go in the next query together (`= ANY($1)`). Each round trip to PostgreSQL
 * costs both processes CPU, so under load this is what lets reads scale; when idle, a lookup
 * goes out at once, alone.
 *
 * Never a cache: a lookup never joins a query already sent, so it sees everything committed
 * before it was asked (a card acknowledged by any server), and nothing is kept once answered.
 */

export interface LookupOptions<K, R> {
  /** Runs one query for `keys` (distinct) and hands back its rows. */
  run(keys: K[]): Promise<R[]>;
  /** The key a row answers. */
  keyOf(row: R): K;
  /** Queries out at once at most. */
  readonly maxInFlight: number;
  /** Keys in one query at most. */
  readonly maxKeys: number;
}

interface Waiter<K, R> {
  readonly keys: readonly K[];
  resolve(rows: R[]): void;
  reject(err: unknown): void;
}

export class Lookup<K, R> {
  readonly #options: LookupOptions<K, R>;
  #waiting: Waiter<K, R>[] = [];
  #inFlight = 0;
  #scheduled = false;

  constructor(options: LookupOptions<K, R>) {
    this.#options = options;
  }

  /** The rows answering `keys` (every row of each key, in the query's order). */
  rows(keys: readonly K[]): Promise<R[]> {
    return new Promise<R[]>((resolve, reject) => {
      this.#waiting.push({ keys, resolve, reject });
      // Lookups asked in the same turn of the event loop go out together: setImmediate runs
      // once the requests that arrived in this turn were all handled (a microtask would run
      // after each one), and waits for no timer.
      if (!this.#scheduled && this.#inFlight < this.#options.maxInFlight) {
        this.#scheduled = true;
        setImmediate(() => {
          this.#scheduled = false;
          this.#send();
        });
      }
    });
  }

  #send(): void {
    while (this.#waiting.length > 0 && this.#inFlight < this.#options.maxInFlight) {
      const batch: Waiter<K, R>[] = [];
      const keys = new Set<K>();
      while (this.#waiting.length > 0) {
        const next = this.#waiting[0] as Waiter<K, R>;
        if (batch.length > 0 && keys.size + next.keys.length > this.#options.maxKeys) break;
        this.#waiting.shift();
        batch.push(next);
        for (const key of next.keys) keys.add(key);
      }
      this.#inFlight++;
      void this.#flight(batch, [...keys]);
    }
  }

  async #flight(batch: Waiter<K, R>[], keys: K[]): Promise<void> {
    try {
      const rows = await this.#options.run(keys);
      if (batch.length === 1) (batch[0] as Waiter<K, R>).resolve(rows);
      else {
        const byKey = new Map<K, R[]>();
        for (const row of rows) {
          const key = this.#options.keyOf(row);
          const list = byKey.get(key);
          if (list) list.push(row);
          else byKey.set(key, [row]);
        }
        for (const waiter of batch)
          waiter.resolve(waiter.keys.flatMap((key) => byKey.get(key) ?? []));
      }
    } catch (err) {
      for (const waiter of batch) waiter.reject(err);
    } finally {
      this.#inFlight--;
      this.#send();
    }
  }
}
