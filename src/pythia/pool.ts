/**
 * The Pythia worker pool: every pairing the server computes runs here, on worker threads
 * managed by piscina, so a brainkey (tens of milliseconds of synchronous WebAssembly) never
 * holds up the event loop that serves card reads.
 *
 * Piscina keeps the threads warm (the WebAssembly is instantiated once per thread), replaces a
 * thread that dies and fails only the task it was running, bounds the queue (a full queue is
 * answered SERVER_BUSY, 503, rather than growing without limit), and can lower the threads'
 * scheduling priority (`niceIncrement`) so the event loop wins the CPU when both want it.
 */
import { availableParallelism } from 'node:os';
import type { Piscina } from 'piscina';
import { CardsError } from '../core/errors.js';
import type { PasswordTransform, PythiaKeyPair, PythiaKeys } from '../crypto/pythia.js';
import type { PythiaAnswers, PythiaJob, PythiaOutcome } from './jobs.js';

export interface PythiaPoolOptions {
  /** Worker threads (default: one fewer than the CPUs, at least one). */
  readonly threads?: number;
  /** Jobs waiting beyond the running ones before SERVER_BUSY (default: 64 per thread). */
  readonly maxQueue?: number;
  /** Added to the threads' nice value on Linux and macOS (default 0: no change). */
  readonly niceIncrement?: number;
  /** Called with a thread's failure that no task was waiting for. */
  readonly onError?: (err: unknown) => void;
  /** Aborted while the threads still load the WebAssembly: `open` stops them and rejects. */
  readonly signal?: AbortSignal;
}

export class PythiaPool {
  readonly #pool: Piscina<PythiaJob, PythiaOutcome<unknown>>;

  private constructor(pool: Piscina<PythiaJob, PythiaOutcome<unknown>>) {
    this.#pool = pool;
  }

  /** Starts the threads and waits until each has its WebAssembly ready. */
  static async open(options: PythiaPoolOptions = {}): Promise<PythiaPool> {
    const threads = options.threads ?? Math.max(1, availableParallelism() - 1);
    if (!(Number.isSafeInteger(threads) && threads >= 1)) {
      throw new RangeError(`Pythia threads: expected an integer from 1, got ${threads}`);
    }
    // Loaded here, not with the module: a server that is never asked for Pythia never loads it.
    const { Piscina } = await import('piscina');
    const pool = new Piscina<PythiaJob, PythiaOutcome<unknown>>({
      filename: new URL('./worker.js', import.meta.url).href,
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: Infinity,
      maxQueue: options.maxQueue ?? 64 * threads,
      niceIncrement: options.niceIncrement ?? 0,
    });
    pool.on('error', options.onError ?? (() => undefined));
    const opened = new PythiaPool(pool);
    const { signal } = options;
    // A server stopping while its threads load: nothing waits for them, stop them at once.
    // Once: a second destroy would let piscina start a new thread for the one that exits.
    let destroyed: Promise<void> | undefined;
    const stop = (): void => void (destroyed ??= pool.destroy());
    signal?.addEventListener('abort', stop, { once: true });
    try {
      signal?.throwIfAborted();
      // One small job per thread: the threads load the WebAssembly now, not on the first request.
      const warm = { op: 'keys', secret: new Uint8Array(32), versions: 1 } as const;
      await Promise.all(Array.from({ length: threads }, () => opened.#run(warm)));
    } catch (err) {
      await (destroyed ??= pool.destroy());
      throw signal?.aborted ? signal.reason : err;
    } finally {
      signal?.removeEventListener('abort', stop);
    }
    return opened;
  }

  /** The brainkey key, `versions` password keys and their printed strings, of `secret`. */
  keys(secret: Uint8Array, versions: number): Promise<PythiaKeys> {
    return this.#run({ op: 'keys', secret, versions });
  }

  /** A brainkey seed: the blinded password transformed under `key` with `tweak`. */
  brainkey(
    key: PythiaKeyPair,
    blindedPassword: Uint8Array,
    tweak: Uint8Array,
  ): Promise<Uint8Array> {
    return this.#run({ op: 'brainkey', key, blindedPassword, tweak });
  }

  /** A password transform under `key` with the salt as tweak, and its proof when asked. */
  password(
    key: PythiaKeyPair,
    blindedPassword: Uint8Array,
    salt: Uint8Array,
    includeProof: boolean,
  ): Promise<PasswordTransform> {
    return this.#run({ op: 'password', key, blindedPassword, salt, includeProof });
  }

  /** Lets running jobs finish, then stops the threads. */
  close(): Promise<void> {
    return this.#pool.close();
  }

  async #run<J extends PythiaJob>(job: J): Promise<PythiaAnswers[J['op']]> {
    if (this.#pool.queueSize >= this.#pool.options.maxQueue) throw busy();
    let outcome: PythiaOutcome<unknown>;
    try {
      outcome = await this.#pool.run(job);
    } catch (err) {
      // piscina's refusal when the queue filled between the check above and the run
      if (err instanceof Error && err.message === 'Task queue is at limit') throw busy(err);
      throw err;
    }
    if ('refused' in outcome) throw new CardsError(outcome.refused.code, outcome.refused.message);
    return outcome.ok as PythiaAnswers[J['op']];
  }
}

const busy = (cause?: unknown): CardsError =>
  new CardsError('SERVER_BUSY', 'Too many Pythia requests are waiting. Retry shortly.', { cause });
