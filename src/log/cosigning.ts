/**
 * Cosigning in the background (C2SP tlog-witness v1.0.0): a checkpoint is published as soon as
 * the log signs it, and each witness's cosignature is added when it comes. One request at a
 * time per witness, the newest checkpoint next: a checkpoint superseded while its witness was
 * busy is skipped, since a witness needs only the consistency proof from the size it last
 * cosigned. A failed request is sent again after a pause that doubles up to a minute (sooner
 * when a newer checkpoint comes). A witness that never answers delays nothing but its own
 * cosignature.
 */

/** A witness (or anything) that cosigns the log's checkpoints (tlog-witness). */
export interface CheckpointCosigner {
  readonly name: string;
  /**
   * Signature lines (with newlines) cosigning `signed`, a checkpoint of `size` entries;
   * `proof(old)` gives the consistency proof from an older size the witness knows. `signal`
   * aborts the request when the log closes.
   */
  cosign(
    signed: string,
    size: number,
    proof: (oldSize: number) => Promise<Uint8Array[]>,
    signal: AbortSignal,
  ): Promise<string>;
}

/** A signed checkpoint to cosign. */
export interface Submission {
  readonly signed: string;
  readonly size: number;
  readonly proof: (oldSize: number) => Promise<Uint8Array[]>;
}

export interface CosigningOptions {
  readonly cosigners: readonly CheckpointCosigner[];
  /** Keeps a witness's lines for the checkpoint they cosign. */
  readonly onCosigned: (submission: Submission, lines: string) => Promise<void>;
  readonly onWarning: (message: string) => void;
}

/** The witnesses of one log, each with its own queue of one. */
export class Cosigning {
  readonly #queues: WitnessQueue[];
  readonly #abort = new AbortController();

  constructor(options: CosigningOptions) {
    this.#queues = options.cosigners.map((c) => new WitnessQueue(c, options, this.#abort.signal));
  }

  /** Asks every witness to cosign `submission` (after the request it is answering, if any). */
  submit(submission: Submission): void {
    for (const queue of this.#queues) queue.submit(submission);
  }

  /** Settles when no witness has a request in flight or waiting. */
  async idle(): Promise<void> {
    await Promise.all(this.#queues.map((q) => q.idle()));
  }

  /** Waits up to `graceMs` for the requests in flight, then aborts the rest. */
  async close(graceMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
    await Promise.race([this.idle(), grace]);
    clearTimeout(timer);
    this.#abort.abort();
    await this.idle();
  }
}

/** The wait before a failed request is sent again (doubling up to the last). */
const RETRY_MS = [1000, 2000, 4000, 8000, 16_000, 32_000, 60_000];

class WitnessQueue {
  #next: Submission | undefined;
  #busy = false;
  #drained: Promise<void> = Promise.resolve();
  /** Ends a pause between retries early: a newer checkpoint, or the log closing. */
  #wake: (() => void) | undefined;

  constructor(
    readonly cosigner: CheckpointCosigner,
    readonly options: CosigningOptions,
    readonly signal: AbortSignal,
  ) {
    signal.addEventListener('abort', () => this.#wake?.(), { once: true });
  }

  submit(submission: Submission): void {
    if (this.signal.aborted) return;
    this.#next = submission;
    this.#wake?.();
    if (this.#busy) return;
    this.#busy = true;
    this.#drained = this.#drain();
  }

  idle(): Promise<void> {
    return this.#drained;
  }

  async #drain(): Promise<void> {
    let failures = 0;
    for (let s = this.#next; s !== undefined && !this.signal.aborted; s = this.#next) {
      this.#next = undefined;
      try {
        const lines = await this.cosigner.cosign(s.signed, s.size, s.proof, this.signal);
        await this.options.onCosigned(s, lines);
        failures = 0;
      } catch (err) {
        if (this.signal.aborted) break;
        const wait = RETRY_MS[Math.min(failures++, RETRY_MS.length - 1)] ?? 0;
        this.options.onWarning(
          `witness ${this.cosigner.name}: no cosignature for size ${s.size} (asking again in ${wait / 1000} s): ${(err as Error).message}`,
        );
        await this.#pause(wait);
        this.#next ??= s;
      }
    }
    // The loop's end and `busy` cleared in one synchronous step: a later submission drains anew.
    this.#busy = false;
  }

  #pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref();
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.#wake = () => {
        this.#wake = undefined;
        done();
      };
    });
  }
}
