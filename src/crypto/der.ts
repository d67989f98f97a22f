/**
 * The fixed DER structures of the wire (docs/http.md "Cryptography"): the 83-byte signature
 * wrapper, the 44-byte Ed25519 SubjectPublicKeyInfo and the 48-byte PKCS#8 private key. All three
 * are fixed-length for Ed25519, so they are checked byte for byte against their prefix rather than
 * parsed by a general ASN.1 reader. Pure; bytes in, bytes out.
 */
import { CardsError } from '../core/errors.js';
import { decodeHex } from '../core/encoding.js';
import { hasPrefix } from '../core/spki.js';

// The SPKI shape check lives in core (the snapshot validator needs it); re-exported here so the
// DER structures of the wire stay listed in one place for crypto's callers.
export { ED25519_SPKI_LENGTH, ED25519_SPKI_PREFIX, isEd25519Spki } from '../core/spki.js';

const hex = (text: string): Uint8Array => decodeHex(text) as Uint8Array;

/** AlgorithmIdentifier { OID 2.16.840.1.101.3.4.2.3 (sha512), NULL }: the signature wrapper's. */
export const SHA512_ALGORITHM = hex('300d06096086480165030402030500');

/** SEQUENCE { SEQUENCE { OID 2.16.840.1.101.3.4.2.3 (sha512), NULL }, OCTET STRING (64) } */
export const SIGNATURE_PREFIX = hex('3051300d060960864801650304020305000440');
export const SIGNATURE_LENGTH = SIGNATURE_PREFIX.byteLength + 64; // 83

/** SEQUENCE { INTEGER 0, SEQUENCE { OID 1.3.101.112 }, OCTET STRING { OCTET STRING (32) } } */
export const ED25519_PKCS8_PREFIX = hex('302e020100300506032b657004220420');
export const ED25519_PKCS8_LENGTH = ED25519_PKCS8_PREFIX.byteLength + 32; // 48

/** Wraps a raw 64-byte Ed25519 signature in the 83-byte DER structure clients demand. */
export function wrapSignature(raw: Uint8Array): Uint8Array {
  if (raw.byteLength !== 64)
    throw new RangeError(`signature: expected 64 bytes, got ${raw.byteLength}`);
  const out = new Uint8Array(SIGNATURE_LENGTH);
  out.set(SIGNATURE_PREFIX);
  out.set(raw, SIGNATURE_PREFIX.byteLength);
  return out;
}

/**
 * Unwraps the DER signature; refuses a bare 64-byte value, another hash OID or a truncated
 * structure with a message that says which.
 */
export function unwrapSignature(der: Uint8Array): Uint8Array {
  if (der.byteLength === 64) {
    throw new CardsError(
      'SIGNATURE_INVALID',
      'signature: got a bare 64-byte value; expected the 83-byte DER wrapper (SHA-512 OID + OCTET STRING)',
    );
  }
  if (der.byteLength !== SIGNATURE_LENGTH || !hasPrefix(der, SIGNATURE_PREFIX)) {
    const why = hasPrefix(der, SIGNATURE_PREFIX.subarray(0, 4))
      ? 'wrong hash OID or length'
      : 'not the DER wrapper';
    throw new CardsError(
      'SIGNATURE_INVALID',
      `signature: expected ${SIGNATURE_LENGTH} bytes of DER starting 3051300d0609608648016503040203, got ${der.byteLength} bytes (${why})`,
    );
  }
  return der.subarray(SIGNATURE_PREFIX.byteLength);
}

/**
 * The Ed25519 encodings of small-order points, with the sign bit cleared (libsodium's
 * blocklist): the 8 torsion points plus the non-canonical y = p and y = p + 1. OpenSSL accepts
 * such a key, and with it the trivial signature over any message, so no one can own it.
 */
const SMALL_ORDER = [
  '0100000000000000000000000000000000000000000000000000000000000000',
  '0000000000000000000000000000000000000000000000000000000000000000',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05',
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
].map(hex);

/** Whether 32 raw Ed25519 public key bytes encode a small-order point. */
export function isSmallOrderKey(raw: Uint8Array): boolean {
  return SMALL_ORDER.some((bad) =>
    bad.every((b, i) => (i === 31 ? (raw[i] ?? 0) & 0x7f : raw[i]) === b),
  );
}

/**
 * Whether 32 raw Ed25519 public key bytes encode y >= p = 2^255 - 19 (RFC 8032 section 5.1.3
 * requires y < p). Such an encoding names the same point as y - p, so one key would have two
 * spellings; with y = p or p + 1 it is also a small-order point. Refused like them.
 */
export function isNonCanonicalKey(raw: Uint8Array): boolean {
  if (raw.byteLength !== 32 || ((raw[31] ?? 0) & 0x7f) !== 0x7f || (raw[0] ?? 0) < 0xed)
    return false;
  return raw.subarray(1, 31).every((b) => b === 0xff);
}
