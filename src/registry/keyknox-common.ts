/**
 * What Keyknox v1 and v2 share: the wire hash, the previous-hash rule, the version string and
 * the compare-and-swap loop every write runs in. Pure but for the randomness of new hashes.
 */
import { createHash, randomBytes } from 'node:crypto';
import { decodeBase64 } from '../core/encoding.js';
import { CardsError } from '../core/errors.js';
import type { KeyknoxDates } from '../store/keyknox.js';

/**
 * The hash of a state with nothing stored: what a pull of an absent entry answers, and a
 * previous hash a push onto nothing may name. Opaque to clients (they echo it); base64, as the
 * Swift client decodes it; never empty, as the JS client sends a header only when it is truthy.
 */
export const ABSENT_HASH = createHash('sha256').update('cards/keyknox/absent').digest('base64');

/** A new state's hash: random, so it changes at every push even when the content does not. */
export const newHash = (): string => randomBytes(32).toString('base64');

/**
 * Whether `text` is a hash a blob or an entry may hold: canonical base64 of 1 to 64 bytes, as
 * newHash writes (32 bytes). It travels in a response header, which holds no line break and
 * no character above U+00FF, and a client echoes it only when it is not empty.
 */
export function isKeyknoxHash(text: string): boolean {
  const bytes = decodeBase64(text);
  return bytes !== undefined && bytes.byteLength >= 1 && bytes.byteLength <= 64;
}

/** The wire version "n.0" of a v1 blob at version n. */
export const versionString = (n: number): string => `${String(n)}.0`;

/**
 * The previous-hash rule (both versions): a push naming a hash other than the current one, or
 * naming none while something is stored, is refused with 50010; a push onto nothing (or onto a
 * reset v1 blob) may name no hash or the current one.
 */
export function checkPrevious(
  current: { readonly hash: string; readonly occupied: boolean },
  previous: string | undefined,
): void {
  const conflict = previous === undefined ? current.occupied : previous !== current.hash;
  if (conflict) throw new CardsError('KEYKNOX_CONFLICT');
}

/**
 * The dates of a write at `now` over `current` (undefined: nothing stored, so created now). A
 * record imported without dates keeps its creation unknown rather than dated by this write.
 */
export const datesAfter = (current: KeyknoxDates | undefined, now: number): KeyknoxDates => ({
  ...(current === undefined
    ? { created: now }
    : current.created !== undefined && { created: current.created }),
  updated: now,
});

/** How often a write is decided again after another write moved the entry under it. */
const CAS_ATTEMPTS = 16;

/**
 * Runs `attempt` until it lands: it reads, decides and writes with the revision it read, and
 * returns `undefined` when the write found the entry moved (then it is decided again on what
 * is stored now, so a push racing another from the same state ends as a conflict).
 */
export async function untilWritten<T>(attempt: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < CAS_ATTEMPTS; i++) {
    const done = await attempt();
    if (done !== undefined) return done;
  }
  throw new CardsError(
    'STORE_UNAVAILABLE',
    'The Keyknox entry kept changing under this request. Try again.',
    { status: 503 },
  );
}
