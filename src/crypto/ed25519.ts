/**
 * Card signatures (spec 2.3, docs/http.md "Cryptography"): Ed25519 (RFC 8032, plain) over the
 * 64-byte SHA-512 digest of the concatenated parts, in the 83-byte DER wrapper.
 *
 * Runs on node:crypto (OpenSSL), about 15x faster than pure JS on this machine class; the tests
 * cross-check it byte for byte against @noble/curves with `zip215: false` (equally strict).
 */
import { createHash, sign, verify } from 'node:crypto';
import { unwrapSignature, wrapSignature } from './der.js';
import type { PrivateKey, PublicKey } from './keys.js';

export function sha512(...parts: Uint8Array[]): Uint8Array {
  const hash = createHash('sha512');
  for (const part of parts) hash.update(part);
  return new Uint8Array(hash.digest());
}

/** DER-wrapped signature over SHA-512(parts[0] ‖ parts[1] ‖ …). */
export function signParts(key: PrivateKey, ...parts: Uint8Array[]): Uint8Array {
  return wrapSignature(new Uint8Array(sign(null, sha512(...parts), key.keyObject)));
}

/**
 * Verifies a DER-wrapped signature. Returns false for a wrong signature; throws
 * CardsError SIGNATURE_INVALID for a value that is not the DER wrapper at all.
 */
export function verifyParts(
  key: PublicKey,
  signature: Uint8Array,
  ...parts: Uint8Array[]
): boolean {
  const raw = unwrapSignature(signature);
  return verify(null, sha512(...parts), key.keyObject, raw);
}
