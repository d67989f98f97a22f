/**
 * Pythia's rules over the computation: reading `/pythia/v1/brainkey` and `/pythia/v1/password`
 * bodies, the throttle, the brainkey tweak of the caller, the key version asked. The pairings
 * themselves run elsewhere (src/pythia's worker pool, handed in as `PythiaCompute`), with the
 * vendor's own implementation; nothing here computes one.
 *
 * Bodies: `blinded_password` strict base64 (60001), `brainkey_id` a string of well-formed
 * Unicode without U+0000 (60004), `user_id` strict base64 of 1 to 128 bytes (60002), `version`
 * an integer of a key this server keeps (60003; absent: the newest), `include_proof` a boolean
 * (30001 otherwise).
 */
import { decodeBase64, encodeBase64, isPortableText } from '../core/encoding.js';
import { CardsError } from '../core/errors.js';
import {
  brainkeyTweak,
  PYTHIA_SIZES,
  type PasswordTransform,
  type PythiaKeyPair,
  type PythiaKeys,
} from '../crypto/pythia.js';
import type { PythiaThrottle } from './pythia-throttle.js';
import { bodyObject } from './requests.js';

/** What computes the pairings (src/pythia/pool.ts, on worker threads). */
export interface PythiaCompute {
  brainkey(key: PythiaKeyPair, blindedPassword: Uint8Array, tweak: Uint8Array): Promise<Uint8Array>;
  password(
    key: PythiaKeyPair,
    blindedPassword: Uint8Array,
    salt: Uint8Array,
    includeProof: boolean,
  ): Promise<PasswordTransform>;
}

export interface PasswordAnswer {
  readonly transformed_password: string;
  readonly proof?: { readonly value_c: string; readonly value_u: string };
}

function blinded(field: unknown): Uint8Array {
  const bytes = typeof field === 'string' ? decodeBase64(field) : undefined;
  if (bytes?.byteLength !== PYTHIA_SIZES.g1) throw new CardsError('PYTHIA_PASSWORD_INVALID');
  return bytes;
}

function saltOf(field: unknown): Uint8Array {
  const bytes = typeof field === 'string' ? decodeBase64(field) : undefined;
  if (
    bytes === undefined ||
    bytes.byteLength < PYTHIA_SIZES.binaryMin ||
    bytes.byteLength > PYTHIA_SIZES.binaryMax
  )
    throw new CardsError('PYTHIA_SALT_INVALID');
  return bytes;
}

export class Pythia {
  readonly #compute: PythiaCompute;
  readonly #keys: PythiaKeys;
  readonly #throttle: PythiaThrottle;
  #served = { brainkey: 0, password: 0 };

  constructor(compute: PythiaCompute, keys: PythiaKeys, throttle: PythiaThrottle) {
    this.#compute = compute;
    this.#keys = keys;
    this.#throttle = throttle;
  }

  get proofKeys(): readonly string[] {
    return this.#keys.proofKeys;
  }

  get updateTokens(): readonly string[] {
    return this.#keys.updateTokens;
  }

  /** Counts for the admin API: answered and throttled requests. */
  get counts(): { brainkeys: number; passwords: number; throttled: number } {
    return {
      brainkeys: this.#served.brainkey,
      passwords: this.#served.password,
      throttled: this.#throttle.refused,
    };
  }

  /** `/pythia/v1/brainkey`: `{seed}` for the caller's blinded password. */
  async brainkey(
    caller: { app: string; identity: string },
    body: unknown,
  ): Promise<{ seed: string }> {
    const b = bodyObject(body, 'Pythia brainkey');
    const blindedPassword = blinded(b.blinded_password);
    const id = b.brainkey_id;
    if (id !== undefined && id !== null && typeof id !== 'string')
      throw new CardsError('PYTHIA_BRAINKEY_ID_INVALID');
    // The tweak hashes the id's UTF-8, which writes every lone surrogate as U+FFFD: "x\uD800",
    // "x\uDBFF" and "x\uFFFD" would be one brainkey. The text rule of every other string
    // (docs/http.md, "Text") holds here too.
    if (typeof id === 'string' && !isPortableText(id))
      throw new CardsError(
        'PYTHIA_BRAINKEY_ID_INVALID',
        'brainkey_id must be well-formed Unicode without U+0000.',
      );
    const tweak = brainkeyTweak(caller.app, caller.identity, typeof id === 'string' ? id : '');
    const giveBack = await this.#throttle.take('brainkey', caller.app, caller.identity);
    let seed: Uint8Array;
    try {
      seed = await this.#compute.brainkey(this.#keys.brainkey, blindedPassword, tweak);
    } catch (err) {
      // A point not on the curve, or a full queue: nothing was served.
      giveBack();
      throw err;
    }
    this.#served.brainkey++;
    return { seed: encodeBase64(seed) };
  }

  /** `/pythia/v1/password`: the transform under the version asked, with its proof if asked. */
  async password(
    caller: { app: string; identity: string },
    body: unknown,
  ): Promise<PasswordAnswer> {
    const b = bodyObject(body, 'Pythia password');
    const blindedPassword = blinded(b.blinded_password);
    const salt = saltOf(b.user_id);
    const versions = this.#keys.passwords.length;
    const version = b.version ?? versions;
    if (!(
      Number.isSafeInteger(version) &&
      (version as number) >= 1 &&
      (version as number) <= versions
    ))
      throw new CardsError(
        'PYTHIA_VERSION_UNKNOWN',
        `This server keeps Pythia key versions 1 to ${String(versions)}.`,
      );
    const includeProof = b.include_proof ?? false;
    if (typeof includeProof !== 'boolean')
      throw new CardsError('BODY_PARSE', '"include_proof" must be true or false.');
    const key = this.#keys.passwords[(version as number) - 1]!;
    const out = await this.#compute.password(key, blindedPassword, salt, includeProof);
    this.#served.password++;
    return {
      transformed_password: encodeBase64(out.transformedPassword),
      ...(out.proof && {
        proof: { value_c: encodeBase64(out.proof.c), value_u: encodeBase64(out.proof.u) },
      }),
    };
  }
}
