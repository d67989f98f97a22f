/**
 * The server's half of the Pythia protocol (a verifiable, partially-oblivious PRF over the
 * pairing-friendly curve BLS12-381 as implemented by RELIC): brainkey seeds and breach-proof
 * password transforms with their proofs, the per-version transformation keys, proof keys and
 * update tokens.
 *
 * Every pairing is computed by the vendor's own implementation (`@virgilsecurity/pythia-crypto`
 * over the `@virgilsecurity/core-pythia` WebAssembly), passed in as `PythiaPrimitives`: this
 * module only derives inputs, checks sizes, and translates the library's failures into our
 * codes. It never loads the WebAssembly itself (src/pythia does, on worker threads) and never
 * hand-writes curve arithmetic. Bytes in, bytes out; base64 only for the printed key strings.
 */
import { createHash } from 'node:crypto';
import { CardsError, type ErrorCode } from '../core/errors.js';
import { concatBytes, encodeBase64, utf8, utf8Length } from '../core/encoding.js';

/** The calls of the vendor's `VirgilPythiaCrypto` this module makes (its server-side half). */
export interface PythiaPrimitives {
  computeTransformationKeyPair(options: {
    transformationKeyId: Uint8Array;
    pythiaSecret: Uint8Array;
    pythiaScopeSecret: Uint8Array;
  }): { privateKey: Uint8Array; publicKey: Uint8Array };
  transform(options: {
    blindedPassword: Uint8Array;
    tweak: Uint8Array;
    transformationPrivateKey: Uint8Array;
  }): { transformedPassword: Uint8Array; transformedTweak: Uint8Array };
  prove(options: {
    transformedPassword: Uint8Array;
    blindedPassword: Uint8Array;
    transformedTweak: Uint8Array;
    transformationKeyPair: { privateKey: Uint8Array; publicKey: Uint8Array };
  }): { proofValueC: Uint8Array; proofValueU: Uint8Array };
  getPasswordUpdateToken(options: {
    oldTransformationPrivateKey: Uint8Array;
    newTransformationPrivateKey: Uint8Array;
  }): Uint8Array;
}

/**
 * RELIC's encodings at the library's parameters (FP_PRIME 381): a compressed G1 point is one
 * tag byte and a 48-byte coordinate; a big number 33 bytes; a GT element 8 × 48 bytes. The
 * library takes binary arguments (tweaks, secrets, key ids) of 1 to 128 bytes.
 */
export const PYTHIA_SIZES = {
  g1: 49,
  bigNumber: 33,
  gt: 384,
  binaryMin: 1,
  binaryMax: 128,
} as const;

/** The longest `brainkey_id` taken, in UTF-8 bytes (as long as an identity may be). */
export const BRAINKEY_ID_MAX_BYTES = 1024;

export interface PythiaKeyPair {
  readonly privateKey: Uint8Array;
  readonly publicKey: Uint8Array;
}

/** Which transformation key: the one brainkey key, or a numbered password key version. */
type PythiaKeyName = { readonly brainkey: true } | { readonly password: number };

// The library computes k = HMAC-SHA384(pythiaSecret, scope ‖ keyId) mod the group order
// (VirgilSecurity/pythia `compute_kw`). A fixed scope label makes `scope ‖ keyId` unambiguous,
// so one kept secret yields independent keys for the brainkey and for each password version.
const KEY_SCOPE = utf8('cards/pythia/v1');

const keyId = (name: PythiaKeyName): Uint8Array =>
  utf8('brainkey' in name ? 'brainkey' : `password/${String(name.password)}`);

/**
 * The transformation key pair `name` derived from the kept `secret`: the same secret always
 * gives the same keys (a restart, and every server sharing the secret, answer alike).
 */
function deriveKeyPair(
  p: PythiaPrimitives,
  secret: Uint8Array,
  name: PythiaKeyName,
): PythiaKeyPair {
  checkBinary(secret, 'Pythia secret');
  if ('password' in name && !(Number.isSafeInteger(name.password) && name.password >= 1)) {
    throw new RangeError(`Pythia key version: expected an integer from 1, got ${name.password}`);
  }
  const pair = p.computeTransformationKeyPair({
    transformationKeyId: keyId(name),
    pythiaSecret: secret,
    pythiaScopeSecret: KEY_SCOPE,
  });
  return { privateKey: bytes(pair.privateKey), publicKey: bytes(pair.publicKey) };
}

/**
 * The brainkey tweak of a caller: SHA-256 over the app, the identity and the brainkey id,
 * each length-prefixed, so that equal passwords of two users (or of one user under two
 * brainkey ids, or of two apps) give unrelated seeds. Fixed 32 bytes: within the library's
 * tweak limit whatever the lengths of its parts.
 */
export function brainkeyTweak(app: string, identity: string, brainkeyId = ''): Uint8Array {
  if (utf8Length(brainkeyId) > BRAINKEY_ID_MAX_BYTES) refuse('PYTHIA_BRAINKEY_ID_INVALID');
  const hash = createHash('sha256').update('cards/pythia/brainkey/v1');
  for (const part of [app, identity, brainkeyId]) {
    const b = utf8(part);
    const length = new Uint8Array(4);
    new DataView(length.buffer).setUint32(0, b.byteLength);
    hash.update(concatBytes(length, b));
  }
  return new Uint8Array(hash.digest());
}

/** `/pythia/v1/brainkey`: the seed (a GT element) for a blinded password. */
export function transformBrainkey(
  p: PythiaPrimitives,
  key: PythiaKeyPair,
  blindedPassword: Uint8Array,
  tweak: Uint8Array,
): Uint8Array {
  checkBlinded(blindedPassword);
  checkBinary(tweak, 'brainkey tweak');
  const { transformedPassword } = call('PYTHIA_PASSWORD_INVALID', () =>
    p.transform({ blindedPassword, tweak, transformationPrivateKey: key.privateKey }),
  );
  return bytes(transformedPassword);
}

export interface PasswordTransform {
  readonly transformedPassword: Uint8Array;
  /** The proof that `key`'s private half made it, for the proof key of its version. */
  readonly proof?: { readonly c: Uint8Array; readonly u: Uint8Array };
}

/**
 * `/pythia/v1/password`: the blinded password transformed under `key` with the salt as the
 * tweak (the client verifies the proof with exactly that tweak), and the proof when asked.
 */
export function transformPassword(
  p: PythiaPrimitives,
  key: PythiaKeyPair,
  blindedPassword: Uint8Array,
  salt: Uint8Array,
  includeProof: boolean,
): PasswordTransform {
  checkBlinded(blindedPassword);
  if (salt.byteLength < PYTHIA_SIZES.binaryMin || salt.byteLength > PYTHIA_SIZES.binaryMax) {
    refuse('PYTHIA_SALT_INVALID', `user_id: expected 1 to 128 bytes, got ${salt.byteLength}`);
  }
  const { transformedPassword, transformedTweak } = call('PYTHIA_PASSWORD_INVALID', () =>
    p.transform({ blindedPassword, tweak: salt, transformationPrivateKey: key.privateKey }),
  );
  if (!includeProof) return { transformedPassword: bytes(transformedPassword) };
  const { proofValueC, proofValueU } = call('PYTHIA_PASSWORD_INVALID', () =>
    p.prove({ transformedPassword, blindedPassword, transformedTweak, transformationKeyPair: key }),
  );
  return {
    transformedPassword: bytes(transformedPassword),
    proof: { c: bytes(proofValueC), u: bytes(proofValueU) },
  };
}

/** The token that moves a deblinded password from the key `from` to the key `to`. */
function passwordUpdateToken(
  p: PythiaPrimitives,
  from: PythiaKeyPair,
  to: PythiaKeyPair,
): Uint8Array {
  return bytes(
    p.getPasswordUpdateToken({
      oldTransformationPrivateKey: from.privateKey,
      newTransformationPrivateKey: to.privateKey,
    }),
  );
}

/** Every key a server serves from one kept secret, and what it prints for app developers. */
export interface PythiaKeys {
  readonly brainkey: PythiaKeyPair;
  /** Password keys, version 1 first: `passwords[v - 1]` is version v. */
  readonly passwords: readonly PythiaKeyPair[];
  /** `PK.<v>.<base64>` for each password version, in order. */
  readonly proofKeys: readonly string[];
  /** `UT.<v>.<v+1>.<base64>` between consecutive versions, in order. */
  readonly updateTokens: readonly string[];
}

/** The brainkey key and `versions` numbered password keys of `secret`, with their strings. */
export function derivePythiaKeys(
  p: PythiaPrimitives,
  secret: Uint8Array,
  versions: number,
): PythiaKeys {
  if (!(Number.isSafeInteger(versions) && versions >= 1)) {
    throw new RangeError(`Pythia key versions: expected an integer from 1, got ${versions}`);
  }
  const passwords = Array.from({ length: versions }, (_, i) =>
    deriveKeyPair(p, secret, { password: i + 1 }),
  );
  return {
    brainkey: deriveKeyPair(p, secret, { brainkey: true }),
    passwords,
    proofKeys: passwords.map((key, i) => formatProofKey(i + 1, key.publicKey)),
    updateTokens: passwords
      .slice(1)
      .map((key, i) => formatUpdateToken(i + 1, i + 2, passwordUpdateToken(p, passwords[i]!, key))),
  };
}

/** A proof key as app developers configure it: `PK.<version>.<base64 public key>`. */
const formatProofKey = (version: number, publicKey: Uint8Array): string =>
  `PK.${String(version)}.${encodeBase64(publicKey)}`;

/** An update token as app developers apply it: `UT.<from>.<to>.<base64 token>`. */
const formatUpdateToken = (from: number, to: number, token: Uint8Array): string =>
  `UT.${String(from)}.${String(to)}.${encodeBase64(token)}`;

function checkBlinded(blinded: Uint8Array): void {
  if (blinded.byteLength !== PYTHIA_SIZES.g1) {
    refuse(
      'PYTHIA_PASSWORD_INVALID',
      `blinded_password: expected ${PYTHIA_SIZES.g1} bytes, got ${blinded.byteLength}`,
    );
  }
}

/** A binary argument the server makes itself: out of range is our bug, not the caller's. */
function checkBinary(b: Uint8Array, what: string): void {
  if (b.byteLength < PYTHIA_SIZES.binaryMin || b.byteLength > PYTHIA_SIZES.binaryMax) {
    throw new RangeError(`${what}: expected 1 to 128 bytes, got ${b.byteLength}`);
  }
}

function refuse(code: ErrorCode, message?: string): never {
  throw new CardsError(code, message);
}

/**
 * Runs a library call whose only failure for inputs of the right sizes is a point that is not
 * on the curve (the library answers "returns -1"): that is the caller's bad input.
 */
function call<T>(code: ErrorCode, run: () => T): T {
  try {
    return run();
  } catch (err) {
    throw new CardsError(code, undefined, { cause: err });
  }
}

/** A plain Uint8Array of the library's Buffer (so it crosses a worker boundary as one). */
const bytes = (b: Uint8Array): Uint8Array =>
  new Uint8Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
