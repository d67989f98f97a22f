/**
 * Ed25519 keys: generate, read and write.
 *
 * Public keys travel as base64 DER SPKI (44 bytes). Private keys are read from PEM PKCS#8 (what
 * `openssl genpkey -algorithm ed25519` writes) or base64 DER PKCS#8 (what the vendor's tools
 * store, sometimes inside PEM-style armour); anything else is refused naming both. Node's
 * KeyObjects are built once per key and kept, since building one costs more than a signature.
 * Keys are imported and exported through their JWK form wherever possible: on OpenSSL 3 a JWK
 * import costs ~12 µs against ~100 µs (SPKI) or ~450 µs (PKCS#8) through the DER decoder.
 */
import { createPrivateKey, createPublicKey, randomBytes, type KeyObject } from 'node:crypto';
import { CardsError } from '../core/errors.js';
import {
  concatBytes,
  decodeBase64,
  decodeBase64Url,
  encodeBase64,
  encodeBase64Url,
} from '../core/encoding.js';
import { hasPrefix } from '../core/spki.js';
import {
  ED25519_PKCS8_LENGTH,
  ED25519_PKCS8_PREFIX,
  ED25519_SPKI_LENGTH,
  ED25519_SPKI_PREFIX,
  isEd25519Spki,
  isNonCanonicalKey,
  isSmallOrderKey,
} from './der.js';

export const ACCEPTED_PRIVATE_KEY_FORMATS =
  'PEM PKCS#8 ("-----BEGIN PRIVATE KEY-----", as written by `openssl genpkey -algorithm ed25519` or `cards keygen`) or base64 DER PKCS#8 (48 bytes, starting "MC4CAQAw")';
export const ACCEPTED_PUBLIC_KEY_FORMATS =
  'base64 DER SPKI (44 bytes, starting "MCowBQYDK2Vw"), PEM "PUBLIC KEY", or an Ed25519 JWK';

/** KEY_FORMAT for a key text or bytes not in a form read here, naming the forms that are. */
const notPrivateKey = (message: string): CardsError =>
  new CardsError('KEY_FORMAT', message, {
    hint: `accepted formats: ${ACCEPTED_PRIVATE_KEY_FORMATS}`,
  });
const notPublicKey = (message: string): CardsError =>
  new CardsError('KEY_FORMAT', message, {
    hint: `accepted formats: ${ACCEPTED_PUBLIC_KEY_FORMATS}`,
  });

export class PublicKey {
  readonly spki: Uint8Array;
  readonly keyObject: KeyObject;

  private constructor(spki: Uint8Array, keyObject: KeyObject) {
    this.spki = spki;
    this.keyObject = keyObject;
  }

  /** From the 44-byte DER SPKI; throws KEY_FORMAT otherwise. */
  static fromSpki(spki: Uint8Array): PublicKey {
    if (isEd25519Spki(spki) !== 'yes') {
      throw new CardsError(
        'KEY_FORMAT',
        `public key: expected a ${ED25519_SPKI_LENGTH}-byte Ed25519 DER SPKI, got ${spki.byteLength} bytes`,
      );
    }
    checkPoint(spki.subarray(ED25519_SPKI_PREFIX.byteLength));
    const x = encodeBase64Url(spki.subarray(ED25519_SPKI_PREFIX.byteLength));
    let keyObject: KeyObject;
    try {
      keyObject = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
    } catch (cause) {
      throw new CardsError('KEY_FORMAT', 'public key: not an Ed25519 key OpenSSL accepts', {
        cause,
      });
    }
    return new PublicKey(new Uint8Array(spki), keyObject);
  }

  static fromKeyObject(keyObject: KeyObject): PublicKey {
    const x = decodeBase64Url(String(keyObject.export({ format: 'jwk' }).x));
    if (x?.byteLength !== 32) throw new CardsError('KEY_FORMAT', 'public key: not an Ed25519 key');
    checkPoint(x);
    return new PublicKey(concatBytes(ED25519_SPKI_PREFIX, x), keyObject);
  }

  /** The 32 raw key bytes (RFC 8032). */
  get raw(): Uint8Array {
    return this.spki.subarray(ED25519_SPKI_PREFIX.byteLength);
  }

  toBase64(): string {
    return encodeBase64(this.spki);
  }

  toPem(): string {
    return this.keyObject.export({ format: 'pem', type: 'spki' }).toString();
  }
}

/**
 * The one gate of every public key, whatever form it came in (SPKI, PEM, JWK, JWKS, inline,
 * KeyObject): OpenSSL accepts a small-order point and with it the trivial signature (R = the
 * point, S = 0) over any message, so a token or card "signed" by it proves nothing.
 */
function checkPoint(raw: Uint8Array): void {
  if (isSmallOrderKey(raw)) {
    throw new CardsError(
      'KEY_FORMAT',
      'public key: a small-order Ed25519 point, which verifies forged signatures; refused',
    );
  }
  if (isNonCanonicalKey(raw)) {
    throw new CardsError(
      'KEY_FORMAT',
      'public key: a non-canonical Ed25519 encoding (y >= 2^255 - 19, RFC 8032 section 5.1.3); refused',
    );
  }
}

export class PrivateKey {
  readonly pkcs8: Uint8Array;
  readonly keyObject: KeyObject;
  readonly publicKey: PublicKey;

  private constructor(pkcs8: Uint8Array, keyObject: KeyObject) {
    this.pkcs8 = pkcs8;
    this.keyObject = keyObject;
    this.publicKey = PublicKey.fromKeyObject(createPublicKey(keyObject));
  }

  static fromPkcs8(der: Uint8Array): PrivateKey {
    if (der.byteLength !== ED25519_PKCS8_LENGTH || !hasPrefix(der, ED25519_PKCS8_PREFIX))
      throw notPrivateKey(
        `private key: expected a ${ED25519_PKCS8_LENGTH}-byte Ed25519 DER PKCS#8, got ${der.byteLength} bytes`,
      );
    const keyObject = createPrivateKey({ key: Buffer.from(der), format: 'der', type: 'pkcs8' });
    return new PrivateKey(new Uint8Array(der), keyObject);
  }

  /** From an Ed25519 private KeyObject (exported through JWK, the fast path). */
  static fromKeyObject(keyObject: KeyObject): PrivateKey {
    const d = decodeBase64Url(String(keyObject.export({ format: 'jwk' }).d));
    if (keyObject.asymmetricKeyType !== 'ed25519' || d?.byteLength !== 32) {
      throw new CardsError('KEY_FORMAT', 'private key: not an Ed25519 key');
    }
    return new PrivateKey(concatBytes(ED25519_PKCS8_PREFIX, d), keyObject);
  }

  /**
   * From the 32-byte RFC 8032 seed, imported as a JWK (node reads `d` alone, so `x` is left
   * empty; the public key is then derived by OpenSSL, as for every private key).
   */
  static fromSeed(seed: Uint8Array): PrivateKey {
    if (seed.byteLength !== 32)
      throw new CardsError(
        'KEY_FORMAT',
        `private key seed: expected 32 bytes, got ${seed.byteLength}`,
      );
    const keyObject = createPrivateKey({
      key: { kty: 'OKP', crv: 'Ed25519', d: encodeBase64Url(seed), x: '' },
      format: 'jwk',
    });
    return new PrivateKey(concatBytes(ED25519_PKCS8_PREFIX, seed), keyObject);
  }

  get seed(): Uint8Array {
    return this.pkcs8.subarray(ED25519_PKCS8_PREFIX.byteLength);
  }

  /** PEM PKCS#8, the default file format. */
  toPem(): string {
    const body = encodeBase64(this.pkcs8).replace(/.{1,64}/g, '$&\n');
    return `-----BEGIN PRIVATE KEY-----\n${body}-----END PRIVATE KEY-----\n`;
  }

  /** Base64 DER PKCS#8, the vendor tools' format. */
  toBase64(): string {
    return encodeBase64(this.pkcs8);
  }
}

/**
 * A new key: 32 bytes from the CSPRNG are an Ed25519 private key (RFC 8032 section 5.1.5), as
 * OpenSSL makes one. Not `generateKeyPairSync('ed25519')`: node (v20.20 at least) deadlocks one
 * key in some tens of thousands, when a garbage collection during a JWK export of the new key
 * (which holds the key's mutex) destroys the finished key-generation job, whose destructor takes
 * the same mutex (test/unit/keygen-deadlock.test.ts). Four times faster too (70 against 260 µs).
 */
export function generatePrivateKey(): PrivateKey {
  return PrivateKey.fromSeed(randomBytes(32));
}

const PEM = /^-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\sA-Za-z0-9+/=]+?)\r?\n?-----END \1-----\s*$/;

/** Reads a private key file's text: PEM PKCS#8 or base64 DER PKCS#8. */
export function parsePrivateKey(text: string): PrivateKey {
  const trimmed = text.trim();
  const pem = PEM.exec(trimmed);
  const base64 = pem ? (pem[2] ?? '').replace(/\s+/g, '') : trimmed;
  if (pem && !/PRIVATE KEY$/.test(pem[1] ?? ''))
    throw notPrivateKey(`private key: got a PEM "${pem[1]}" block`);
  const der = decodeBase64(base64);
  if (!der) throw notPrivateKey('private key: not PEM and not base64');
  return PrivateKey.fromPkcs8(der);
}

/** Reads a public key: base64 DER SPKI, PEM SPKI or an Ed25519 JWK (JSON text). */
export function parsePublicKey(text: string): PublicKey {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) return publicKeyFromJwk(trimmed);
  const pem = PEM.exec(trimmed);
  if (pem && pem[1] !== 'PUBLIC KEY') throw notPublicKey(`public key: got a PEM "${pem[1]}" block`);
  const der = decodeBase64(pem ? (pem[2] ?? '').replace(/\s+/g, '') : trimmed);
  if (!der) throw notPublicKey('public key: not base64, PEM or JWK');
  return PublicKey.fromSpki(der);
}

function publicKeyFromJwk(text: string): PublicKey {
  let jwk: unknown;
  try {
    jwk = JSON.parse(text);
  } catch {
    throw notPublicKey('public key: JSON that does not parse');
  }
  const key = jwk as { kty?: unknown; crv?: unknown; x?: unknown };
  if (key.kty !== 'OKP' || key.crv !== 'Ed25519' || typeof key.x !== 'string') {
    throw new CardsError(
      'KEY_FORMAT',
      'public key: JWK is not an Ed25519 key (kty "OKP", crv "Ed25519", x)',
    );
  }
  const x = decodeBase64Url(key.x);
  if (x?.byteLength !== 32)
    throw new CardsError('KEY_FORMAT', 'public key: JWK "x" is not a 32-byte Ed25519 key');
  return PublicKey.fromSpki(concatBytes(ED25519_SPKI_PREFIX, x));
}
