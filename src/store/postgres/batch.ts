/**
 * Group commit for the PostgreSQL store: the inserts that arrive while one transaction is in
 * flight wait in a queue, then go in together in the next one, so one commit (one WAL flush)
 * acknowledges a whole batch instead of one card.
 *
 * A batch is one transaction: it locks the counter row first (every writer on every server does,
 * so inserts into the registry are serialized there and `seq` stays dense and in commit order),
 * reads the stored facts of the batch's ids and previous cards, decides in order which cards the
 * chain rules let in (src/core/chain.ts: the id is free, the previous card exists, is of the same
 * identity, is not a revoking card and has no successor yet, earlier cards of the batch
 * included), and stores those with the counter in one statement. The unique constraints still
 * refuse anything the decision missed (then the whole batch is tried again). Only after COMMIT
 * succeeded are the winners acknowledged; a batch that fails rejects every card of it with 503
 * STORE_UNAVAILABLE, so nothing acknowledged is lost and nothing refused appears. But when the
 * failure is one row's (PostgreSQL refused the data of a card: a data exception, an integrity
 * or a size limit, a trigger's refusal), the batch is written again one card per transaction,
 * so that refusal (500 STORE_UNAVAILABLE: trying again cannot help) is that card's answer
 * alone and the others of its batch commit. A card that lost reads why from the committed
 * state (insert-conflict.ts), so its code and message are the JSON store's. Serialization
 * failures (40001) and deadlocks are retried. No SQL here: sql.ts.
 *
 * A COMMIT whose answer is lost (the connection broke, the client stopped waiting) may have
 * committed all the same. Such a batch is neither acknowledged nor refused on a guess: the
 * database is asked, off the writer's path, whether the batch's first card is stored at the
 * seq the batch gave it (a transaction commits whole or not at all); when it cannot be asked in
 * time, the answer (503) says that the card may be stored.
 */
import type pg from 'pg';
import { CardsError } from '../../core/errors.js';
import {
  isCommitInDoubt,
  isRetryable,
  isRowRefusal,
  isUniqueViolation,
  rowRefused,
  unavailable,
} from './errors.js';
import { backoff } from './database.js';
import { RowEntry } from './rows.js';
import * as SQL from './sql.js';
import { wireJsonOf, type CardEntry, type StoredCard } from '../store.js';

export interface GroupCommitOptions {
  /** A connection of the pool, or a CardsError (503) when none can be had. */
  connect(): Promise<pg.PoolClient>;
  /** Why `card` cannot be stored, read from the committed state; undefined if nothing now. */
  conflict(card: StoredCard): Promise<CardsError | undefined>;
  /**
   * The seq of the stored card `id` (undefined when none is), read once the database answers
   * after a COMMIT whose answer was lost (`cause`); 503 when it cannot be read in time.
   */
  seqAfterLostAnswer(id: string, cause: unknown): Promise<number | undefined>;
  /** Cards waiting at most; more are refused at once with 503 (a bounded queue). */
  readonly maxQueue: number;
  /** Cards per transaction at most. */
  readonly maxBatch: number;
}

/** Attempts of one card: serialization failures and lost races are tried again. */
const ATTEMPTS = 6;

interface Pending {
  readonly card: StoredCard;
  readonly wire: string;
  attempts: number;
  resolve(entry: CardEntry): void;
  reject(err: unknown): void;
}

/** A stored card's facts, as the chain rules need them. */
interface Fact {
  identity: string;
  revoking: boolean;
  chain_id: string;
  chain_seq: number;
  superseded: boolean;
}

interface FactRow {
  id: string;
  identity: string;
  revoking: boolean;
  chain_id: string;
  chain_seq: string;
  superseded: boolean;
}

/** What a batch's transaction decided. */
interface Outcome {
  readonly winners: Pending[];
  readonly entries: RowEntry[];
  readonly losers: Pending[];
  /** The counter after the batch. */
  readonly nextSeq: number;
}

/** A COMMIT that failed in a way that leaves the batch stored or not (errors.ts). */
class CommitInDoubt extends Error {
  readonly outcome: Outcome;
  constructor(cause: unknown, outcome: Outcome) {
    super('the answer to COMMIT was lost', { cause });
    this.outcome = outcome;
  }
}

export interface Committed {
  /** The cards stored by the batch. */
  readonly cards: number;
  /** The counter after the batch: the number of cards in the registry. */
  readonly nextSeq: number;
}

export class GroupCommit {
  readonly #options: GroupCommitOptions;
  readonly #onCommit: (committed: Committed) => void;
  #queue: Pending[] = [];
  #writing: Promise<void> | undefined;
  /** Losers reading why they lost (they may go back into the queue). */
  readonly #settling = new Set<Promise<void>>();

  constructor(options: GroupCommitOptions, onCommit: (committed: Committed) => void) {
    this.#options = options;
    this.#onCommit = onCommit;
  }

  /** Stores `card` in the next batch; resolves once that batch is committed. */
  insert(card: StoredCard): Promise<CardEntry> {
    if (this.#queue.length >= this.#options.maxQueue)
      return Promise.reject(
        new CardsError(
          'STORE_UNAVAILABLE',
          'The card store (PostgreSQL) is busy: too many cards are waiting. Try again later.',
          { status: 503 },
        ),
      );
    return new Promise<CardEntry>((resolve, reject) => {
      this.#enqueue({ card, wire: wireJsonOf(card), attempts: 0, resolve, reject });
    });
  }

  /** Resolves when every card queued so far is settled. */
  async idle(): Promise<void> {
    while (this.#writing || this.#settling.size > 0)
      await Promise.all([this.#writing, ...this.#settling]);
  }

  #enqueue(pending: Pending): void {
    this.#queue.push(pending);
    this.#writing ??= this.#drain();
  }

  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        // One turn of the event loop first: the requests whose bodies, signatures and checks
        // finished meanwhile join this batch (fewer, larger transactions under load; when idle
        // a card waits for no timer).
        await new Promise<void>((resolve) => setImmediate(resolve));
        const batch = this.#queue.splice(0, this.#options.maxBatch);
        await this.#write(batch);
      }
    } finally {
      // In the same step as the last look at the queue: a card queued later starts a new drain.
      this.#writing = undefined;
    }
  }

  /** One batch, tried again on serialization failures; never rejects. */
  async #write(batch: Pending[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      let outcome: Outcome;
      try {
        outcome = await this.#transaction(batch);
      } catch (err) {
        if (err instanceof CommitInDoubt) return this.#offPath(this.#settleInDoubt(batch, err));
        if (attempt < ATTEMPTS && (isRetryable(err) || isUniqueViolation(err))) {
          await backoff(attempt);
          continue;
        }
        if (isRowRefusal(err)) {
          // Which card PostgreSQL refused is not said: each goes alone, in the batch's order.
          if (batch.length > 1) for (const pending of batch) await this.#write([pending]);
          else for (const pending of batch) pending.reject(rowRefused(err));
          return;
        }
        const failure = unavailable(err);
        for (const pending of batch) pending.reject(failure);
        return;
      }
      return this.#acknowledge(outcome);
    }
  }

  /** A committed batch's answers; losers read why after the commit, off the writer's path. */
  #acknowledge({ winners, entries, losers, nextSeq }: Outcome): void {
    if (winners.length > 0) this.#onCommit({ cards: winners.length, nextSeq });
    winners.forEach((pending, i) => pending.resolve(entries[i] as RowEntry));
    for (const pending of losers) this.#offPath(this.#settleLoser(pending));
  }

  /** Work that settles cards beside the writer (the next batch goes on meanwhile). */
  #offPath(work: Promise<void>): void {
    const settled = work.finally(() => this.#settling.delete(settled));
    this.#settling.add(settled);
  }

  async #transaction(batch: Pending[]): Promise<Outcome> {
    const client = await this.#options.connect();
    let broken: Error | undefined;
    try {
      const results = (await client.query(SQL.BEGIN_LOCK_COUNTER)) as unknown as pg.QueryResult[];
      const locked = results[results.length - 1]?.rows[0] as { next_seq: string } | undefined;
      const first = Number(locked?.next_seq ?? 0);
      const wanted = new Set<string>();
      for (const { card } of batch) {
        wanted.add(card.id);
        if (card.previous_card_id !== undefined) wanted.add(card.previous_card_id);
      }
      const facts = new Map<string, Fact>();
      const { rows } = await client.query<FactRow>({ ...SQL.FACTS_OF, values: [[...wanted]] });
      for (const row of rows) facts.set(row.id, { ...row, chain_seq: Number(row.chain_seq) });

      const winners: Pending[] = [];
      const entries: RowEntry[] = [];
      const losers: Pending[] = [];
      const columns: unknown[][] = [[], [], [], [], [], [], [], []];
      let seq = first;
      for (const pending of batch) {
        const { card } = pending;
        const previous =
          card.previous_card_id === undefined ? undefined : facts.get(card.previous_card_id);
        const refused =
          facts.has(card.id) ||
          (card.previous_card_id !== undefined &&
            (!previous ||
              previous.superseded ||
              previous.revoking ||
              previous.identity !== card.identity));
        if (refused) {
          losers.push(pending);
          continue;
        }
        const revoking = card.revoking === true;
        const chain_id = previous?.chain_id ?? card.id;
        const chain_seq = previous?.chain_seq ?? seq;
        if (previous) previous.superseded = true;
        facts.set(card.id, {
          identity: card.identity,
          revoking,
          chain_id,
          chain_seq,
          superseded: false,
        });
        const row = [
          card.id,
          seq,
          card.identity,
          card.previous_card_id ?? null,
          revoking,
          chain_id,
          chain_seq,
          pending.wire,
        ];
        row.forEach((value, i) => (columns[i] as unknown[]).push(value));
        winners.push(pending);
        entries.push(
          new RowEntry(
            {
              id: card.id,
              seq,
              identity: card.identity,
              previous_card_id: card.previous_card_id ?? null,
              revoking,
              chain_id,
              wire: pending.wire,
            },
            undefined,
            revoking ? card.id : undefined,
            card,
          ),
        );
        seq++;
      }
      if (winners.length > 0)
        await client.query({ ...SQL.APPEND_BATCH, values: [...columns, seq] });
      const outcome: Outcome = { winners, entries, losers, nextSeq: seq };
      try {
        await client.query('COMMIT');
      } catch (err) {
        throw winners.length > 0 && isCommitInDoubt(err) ? new CommitInDoubt(err, outcome) : err;
      }
      return outcome;
    } catch (err) {
      await client.query('ROLLBACK').catch((lost: Error) => (broken = lost));
      throw err;
    } finally {
      client.release(broken);
    }
  }

  /** Stored or not, as the database says once it can be asked (see the header). */
  async #settleInDoubt(batch: Pending[], doubt: CommitInDoubt): Promise<void> {
    const { winners, losers, entries } = doubt.outcome;
    const first = entries[0] as RowEntry;
    let seq: number | undefined;
    try {
      seq = await this.#options.seqAfterLostAnswer(first.id, doubt.cause);
    } catch (unknown) {
      for (const pending of winners) pending.reject(unknown);
      for (const pending of losers) pending.reject(unavailable(doubt.cause));
      return;
    }
    if (seq === first.seq) return this.#acknowledge(doubt.outcome);
    const failure = unavailable(doubt.cause);
    for (const pending of batch) pending.reject(failure);
  }

  async #settleLoser(pending: Pending): Promise<void> {
    try {
      const conflict = await this.#options.conflict(pending.card);
      if (conflict) return pending.reject(conflict);
    } catch (err) {
      return pending.reject(unavailable(err));
    }
    // Nothing in the way any more: the next batch tries it again.
    if (++pending.attempts >= ATTEMPTS)
      return pending.reject(unavailable(new Error('insert kept conflicting')));
    this.#enqueue(pending);
  }
}
