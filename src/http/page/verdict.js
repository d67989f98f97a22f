// Signatures (Cards spec section 2.3) and card ids (section 2.4) checked in this browser, with
// @noble/curves and @noble/hashes served by this server: the page takes no verdict from the
// server. Keys by signer in a Map, so a signer named like an Object.prototype property
// (`__proto__`, `constructor`) is a signer like any other.
import { ed25519 } from '@noble/curves/ed25519.js';
import { sha512 } from '@noble/hashes/sha2.js';

export const base64 = (text) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
export const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
const SPKI_PREFIX = '302a300506032b6570032100';
const SIGNATURE_PREFIX = '3051300d060960864801650304020305000440';
const concat = (a, b) => {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
};

/** A card id: the first 32 bytes of SHA-512 over the snapshot, in hex. */
export const cardId = (snapshotBytes) => hex(sha512(snapshotBytes).slice(0, 32));

/**
 * [status, reason] of one signature entry: Ed25519 over SHA-512(snapshot ‖ extra snapshot), in
 * the 83-byte DER wrapper (Cards spec section 2.3 rule 2). `keys`: base64 DER SPKI by signer ('' for a
 * card without a key); a signer without a key is unchecked, and so is one whose key is of
 * another type than Ed25519 (P-256, RSA, the compound keys: the service checked them on create,
 * `cards verify` checks them), never called invalid for a check this page does not make.
 */
export function verdict(entry, snapshotBytes, keys) {
  if (!keys.has(entry.signer)) return ['unchecked', 'no key known for this signer'];
  const spki = keys.get(entry.signer);
  if (typeof spki !== 'string' || spki === '') return ['invalid', 'the card has no public key'];
  try {
    const key = base64(spki);
    if (key.length !== 44 || hex(key.slice(0, 12)) !== SPKI_PREFIX)
      return [
        'unchecked',
        'not an Ed25519 key: this page checks Ed25519 only (`cards verify` checks every type)',
      ];
    const signature = base64(entry.signature);
    if (signature.length !== 83 || hex(signature.slice(0, 19)) !== SIGNATURE_PREFIX)
      return ['invalid', 'not an 83-byte DER signature'];
    const extra = entry.snapshot ? base64(entry.snapshot) : new Uint8Array();
    const ok = ed25519.verify(
      signature.slice(19),
      sha512(concat(snapshotBytes, extra)),
      key.slice(12),
      { zip215: false },
    );
    return ok
      ? ['valid', 'signature verifies']
      : ['invalid', 'signature does not match the snapshot and key'];
  } catch (err) {
    return ['invalid', err.message];
  }
}
