/**
 * C2SP tlog-cosignature v1.0.1: a witness's note signature of type 0x04 over
 * "cosignature/v1\ntime <T>\n" followed by the checkpoint's note text, carried as the 72-byte
 * timestamped_signature { u64 big-endian timestamp; Ed25519 signature[64] }.
 */
import { sign, verify } from 'node:crypto';
import { CardsError } from '../core/errors.js';
import { concatBytes, utf8 } from '../core/encoding.js';
import { ED25519_SPKI_PREFIX } from '../crypto/der.js';
import { PublicKey, type PrivateKey } from '../crypto/keys.js';
import { formatSignatureLine } from './note.js';
import {
  KEY_TYPE_COSIGNATURE,
  isValidKeyName,
  keyId,
  parseVerifierKey,
  type NoteVerifier,
} from './note-keys.js';

const MAX_TIMESTAMP = 2n ** 63n - 1n;

/** The signed message ("Signed message"): header line, time line, then the checkpoint text. */
export function cosignatureMessage(checkpointText: string, timestamp: number): Uint8Array {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0)
    throw new RangeError(`timestamp ${timestamp}`);
  return utf8(`cosignature/v1\ntime ${timestamp}\n${checkpointText}`);
}

export interface Cosigner {
  readonly name: string;
  readonly keyId: number;
  /** The signature line (with its newline) cosigning `checkpointText` at `timestamp` seconds. */
  cosign(checkpointText: string, timestamp: number): string;
}

export function cosigner(name: string, key: PrivateKey): Cosigner {
  if (!isValidKeyName(name)) throw new CardsError('KEY_FORMAT', `cosigner name "${name}"`);
  const id = keyId(name, KEY_TYPE_COSIGNATURE, key.publicKey.raw);
  return {
    name,
    keyId: id,
    cosign(checkpointText, timestamp) {
      const signature = sign(null, cosignatureMessage(checkpointText, timestamp), key.keyObject);
      const stamped = new Uint8Array(72);
      new DataView(stamped.buffer).setBigUint64(0, BigInt(timestamp));
      stamped.set(signature, 8);
      return formatSignatureLine(name, id, stamped);
    },
  };
}

/** The timestamp of a 72-byte timestamped_signature, or undefined when it is not one. */
export function cosignatureTimestamp(signature: Uint8Array): number | undefined {
  if (signature.byteLength !== 72) return undefined;
  const t = new DataView(signature.buffer, signature.byteOffset).getBigUint64(0);
  if (t > MAX_TIMESTAMP || t > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
  return Number(t);
}

/** A note verifier for a cosigner's 0x04 vkey: checks the v1 message. */
export function cosignatureVerifier(vkey: string): NoteVerifier {
  const parsed = parseVerifierKey(vkey);
  if (parsed.type !== KEY_TYPE_COSIGNATURE) {
    throw new CardsError('KEY_FORMAT', `cosigner key ${parsed.name}: not a cosignature (0x04) key`);
  }
  const publicKey = PublicKey.fromSpki(concatBytes(ED25519_SPKI_PREFIX, parsed.key));
  return {
    name: parsed.name,
    keyId: keyId(parsed.name, KEY_TYPE_COSIGNATURE, parsed.key),
    verify(text, signature) {
      const timestamp = cosignatureTimestamp(signature);
      if (timestamp === undefined) return false;
      const message = cosignatureMessage(new TextDecoder().decode(text), timestamp);
      return verify(null, message, publicKey.keyObject, signature.subarray(8));
    },
  };
}
