/**
 * The shape of an Ed25519 SubjectPublicKeyInfo (docs/http.md "Cryptography"): the 44-byte DER form
 * every card carries as its public key. The snapshot validator (core) and the key code
 * (crypto) both need it, so it lives here on the ground floor; crypto/der.ts re-exports it.
 * A byte comparison against a fixed prefix, not an ASN.1 parse. Pure; bytes in, verdict out.
 */
import { decodeHex } from './encoding.js';

const hex = (text: string): Uint8Array => decodeHex(text) as Uint8Array;

/** SEQUENCE { SEQUENCE { OID 1.3.101.112 (Ed25519) }, BIT STRING (32) } */
export const ED25519_SPKI_PREFIX = hex('302a300506032b6570032100');
export const ED25519_SPKI_LENGTH = ED25519_SPKI_PREFIX.byteLength + 32; // 44

/** AlgorithmIdentifier of Ed25519, as it appears inside an SPKI. */
const ED25519_ALGORITHM = hex('300506032b6570');

/** Whether `bytes` begins with `prefix`. */
export const hasPrefix = (bytes: Uint8Array, prefix: Uint8Array): boolean =>
  bytes.byteLength >= prefix.byteLength && prefix.every((b, i) => bytes[i] === b);

/**
 * Whether `key` is an Ed25519 SPKI: 'yes' (exactly the 44-byte form), 'malformed' (names the
 * Ed25519 algorithm but is not that form) or 'no' (another kind of key).
 */
export function isEd25519Spki(key: Uint8Array): 'yes' | 'malformed' | 'no' {
  if (key.byteLength === ED25519_SPKI_LENGTH && hasPrefix(key, ED25519_SPKI_PREFIX)) return 'yes';
  for (
    let i = 0;
    i + ED25519_ALGORITHM.byteLength <= Math.min(key.byteLength, 8 + ED25519_ALGORITHM.byteLength);
    i++
  ) {
    if (hasPrefix(key.subarray(i), ED25519_ALGORITHM)) return 'malformed';
  }
  return 'no';
}
