/**
 * The server's Pythia: the worker pool (src/pythia/pool.ts) that computes every pairing, the
 * secret its keys derive from, kept by the engine like the server's other keys ("pythia-secret":
 * 32 random bytes, base64), so a restart, and every server on one PostgreSQL, answer alike, and
 * the rules over them (src/registry/pythia.ts) with the throttle.
 *
 * The pool starts its threads (each loads the WebAssembly, a few hundred ms of CPU) when Pythia
 * is first asked for (on-demand.ts): a Pythia request, /_cards/info, /metrics or the banner's
 * proof keys; a server nobody asks for Pythia never starts them. `close` lets computations in
 * flight finish, then stops the threads.
 */
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { decodeBase64 } from '../core/encoding.js';
import { CardsError } from '../core/errors.js';
import { PythiaPool } from '../pythia/pool.js';
import { Pythia } from '../registry/pythia.js';
import {
  parseThrottle,
  PythiaThrottle,
  type ThrottleSetting,
} from '../registry/pythia-throttle.js';
import { DEFAULT_PYTHIA_THROTTLE } from './defaults.js';
import { OnDemand } from './on-demand.js';

export { formatThrottle, parseThrottle } from '../registry/pythia-throttle.js';
import type { Engine } from '../store/engine.js';

export interface PythiaSettings {
  /** Password key versions kept, 1 to N (`--pythia-versions`, default 1). */
  readonly versions: number;
  /** Default: a burst of 2, one more every 500 ms, per identity. */
  readonly throttle?: ThrottleSetting | 'off';
  /** Worker threads (default: one fewer than the CPUs, at least one). */
  readonly threads?: number;
}

export interface PythiaInfo {
  readonly versions: number;
  readonly proofKeys: readonly string[];
  readonly updateTokens: readonly string[];
  readonly threads: number;
  readonly throttle: ThrottleSetting | 'off';
}

export interface ServerPythia {
  /**
   * The rules and what the banner prints, once the threads have the WebAssembly and the keys
   * are derived. The first await starts the threads: a server listens without them (its card
   * routes do not need them), and a Pythia request waits for them.
   */
  readonly ready: OnDemand<{ readonly pythia: Pythia; readonly info: PythiaInfo }>;
  close(): Promise<void>;
}

/** Added to the Pythia threads' nice value (Linux, macOS). */
const PYTHIA_NICE = 10;

const defaultPythiaThreads = (): number => Math.max(1, availableParallelism() - 1);

/**
 * Pythia for a starting server: `finish` takes the engine's secret; the pool's threads start
 * when its `ready` is first awaited, and the keys are derived once they are ready.
 */
export function startPythia(settings: PythiaSettings, onError: (err: unknown) => void) {
  const threads = settings.threads ?? defaultPythiaThreads();
  let opening: Promise<PythiaPool> | undefined;
  const stopping = new AbortController();
  // A server that stops while its threads still load is not warned about them.
  const report = (err: unknown): void => {
    if (!stopping.signal.aborted) onError(err);
  };
  // Niced: when the CPUs are busy, the event loops serving cards win over pairings.
  const open = (): Promise<PythiaPool> =>
    (opening ??= PythiaPool.open({
      threads,
      onError: report,
      niceIncrement: PYTHIA_NICE,
      signal: stopping.signal,
    }));
  // Called once the HTTP server has closed (no request waits for Pythia any more): threads still
  // loading the WebAssembly stop at once; an open pool finishes the jobs it has, then stops.
  const abandon = async (): Promise<void> => {
    stopping.abort();
    await (await opening?.catch(() => undefined))?.close();
  };
  return {
    /** Closes the pool of a start that failed, or of a server that stops (if it started). */
    abandon,
    /** Reads (or makes) the kept secret now; the keys are derived when first asked for. */
    finish: async (engine: Engine): Promise<ServerPythia> => {
      const kept = await engine.secrets.keep('pythia-secret', () =>
        randomBytes(32).toString('base64'),
      );
      const secret = decodeBase64(kept.value);
      if (secret === undefined || secret.byteLength < 32)
        throw new CardsError(
          'STORE_CORRUPT',
          `The Pythia secret (${kept.where}) is not base64 of 32 bytes or more; brainkeys would change. Restore it from a backup.`,
        );
      // Counted in the engine's buckets when several servers share it, so they throttle as one.
      const throttle = new PythiaThrottle(
        settings.throttle ?? (parseThrottle(DEFAULT_PYTHIA_THROTTLE) as ThrottleSetting),
        Date.now,
        engine.rateBuckets,
      );
      const ready = new OnDemand(() => {
        const derived = open().then(async (opened) => {
          const keys = await opened.keys(secret, settings.versions);
          return {
            pythia: new Pythia(opened, keys, throttle),
            info: {
              versions: settings.versions,
              proofKeys: keys.proofKeys,
              updateTokens: keys.updateTokens,
              threads,
              throttle: throttle.setting,
            },
          };
        });
        derived.catch(report);
        return derived;
      });
      return { ready, close: abandon };
    },
  };
}
