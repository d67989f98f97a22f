/**
 * Keys of C2SP signed-note v1.0.0 ("Signatures", "Verifier keys"): the 4-byte key ID
 * SHA-256(name ‖ 0x0A ‖ type ‖ public key)[:4], verifier keys `name+hex8(id)+base64(type ‖ key)`
 * and signer keys `PRIVATE+KEY+name+hex8(id)+base64(type ‖ seed)` (the form Go's
 * golang.org/x/mod/sumdb/note reads). Two signature types: 0x01 Ed25519 over the note text,
 * 0x04 timestamped Ed25519 cosignatures (C2SP tlog-cosignature v1.0.1, see cosignature.ts).
 */
import { sign, verify } from 'node:crypto';
import { CardsError } from '../core/errors.js';
import { decodeBase64, concatBytes, encodeBase64, utf8 } from '../core/encoding.js';
import { ED25519_SPKI_PREFIX } from '../crypto/der.js';
import { PrivateKey, PublicKey } from '../crypto/keys.js';
import { sha256 } from './hash.js';

export const KEY_TYPE_ED25519 = 0x01;
export const KEY_TYPE_COSIGNATURE = 0x04;
export type KeyType = typeof KEY_TYPE_ED25519 | typeof KEY_TYPE_COSIGNATURE;

/** Signs a note's text (the signature bytes that follow the key ID). */
export interface NoteSigner {
  readonly name: string;
  readonly keyId: number;
  sign(text: Uint8Array): Uint8Array;
}

/** Verifies one key's signatures (the bytes after the key ID) over a note's text. */
export interface NoteVerifier {
  readonly name: string;
  readonly keyId: number;
  verify(text: Uint8Array, signature: Uint8Array): boolean;
}

/** signed-note "Format": non-empty, no Unicode space, no plus sign. */
export function isValidKeyName(name: string): boolean {
  return (
    name.length > 0 && !/[\s+\u0085]/u.test(name) && ![...name].some((c) => c.charCodeAt(0) < 0x20)
  );
}

export function keyId(name: string, type: KeyType, publicKey: Uint8Array): number {
  const digest = sha256(utf8(name), new Uint8Array([0x0a, type]), publicKey);
  return new DataView(digest.buffer, digest.byteOffset).getUint32(0);
}

const hex8 = (id: number): string => id.toString(16).padStart(8, '0');

export function formatVerifierKey(name: string, type: KeyType, publicKey: Uint8Array): string {
  checkName(name);
  const material = encodeBase64(concatBytes(new Uint8Array([type]), publicKey));
  return `${name}+${hex8(keyId(name, type, publicKey))}+${material}`;
}

export function formatSignerKey(name: string, type: KeyType, key: PrivateKey): string {
  checkName(name);
  const id = keyId(name, type, key.publicKey.raw);
  return `PRIVATE+KEY+${name}+${hex8(id)}+${encodeBase64(concatBytes(new Uint8Array([type]), key.seed))}`;
}

export interface ParsedKey {
  readonly name: string;
  readonly keyId: number;
  readonly type: KeyType;
  /** The 32-byte Ed25519 public key (verifier keys) or seed (signer keys). */
  readonly key: Uint8Array;
}

/** Parses a vkey; refuses (KEY_FORMAT) a wrong key ID, an unknown type or a bad length. */
export function parseVerifierKey(vkey: string): ParsedKey {
  const parts = splitKey(vkey.trim());
  if (!parts) throw badKey(vkey, 'expected name+keyid+key');
  const parsed = parseParts(vkey, parts);
  if (keyId(parsed.name, parsed.type, parsed.key) !== parsed.keyId) {
    throw badKey(vkey, 'the key ID does not match the name and key');
  }
  PublicKey.fromSpki(concatBytes(ED25519_SPKI_PREFIX, parsed.key)); // refuses small-order points
  return parsed;
}

/** Parses a signer key; the key ID must match the public key the seed gives. */
export function parseSignerKey(skey: string): { parsed: ParsedKey; privateKey: PrivateKey } {
  const trimmed = skey.trim();
  const parts = trimmed.startsWith('PRIVATE+KEY+') ? splitKey(trimmed.slice(12)) : undefined;
  if (!parts) throw badKey('PRIVATE+KEY+…', 'expected PRIVATE+KEY+name+keyid+key');
  const parsed = parseParts('PRIVATE+KEY+…', parts);
  const privateKey = PrivateKey.fromSeed(parsed.key);
  if (keyId(parsed.name, parsed.type, privateKey.publicKey.raw) !== parsed.keyId) {
    throw badKey('PRIVATE+KEY+…', 'the key ID does not match the name and key');
  }
  return { parsed, privateKey };
}

/** Splits at the first two plus signs: the base64 key material may itself contain '+'. */
function splitKey(text: string): [string, string, string] | undefined {
  const first = text.indexOf('+');
  const second = first < 0 ? -1 : text.indexOf('+', first + 1);
  if (second < 0) return undefined;
  return [text.slice(0, first), text.slice(first + 1, second), text.slice(second + 1)];
}

function parseParts(shown: string, [name, id, material]: [string, string, string]): ParsedKey {
  if (!isValidKeyName(name)) throw badKey(shown, 'the key name is empty or has a space');
  if (!/^[0-9a-f]{8}$/.test(id)) throw badKey(shown, 'the key ID is not 8 lowercase hex digits');
  const bytes = decodeBase64(material);
  const type = bytes?.[0];
  if (!bytes || (type !== KEY_TYPE_ED25519 && type !== KEY_TYPE_COSIGNATURE)) {
    throw badKey(shown, 'the key is not base64 of type 0x01 or 0x04 and a key');
  }
  if (bytes.byteLength !== 33)
    throw badKey(shown, `expected 32 key bytes, got ${bytes.byteLength - 1}`);
  return { name, keyId: Number.parseInt(id, 16), type, key: bytes.subarray(1) };
}

function checkName(name: string): void {
  if (!isValidKeyName(name)) {
    throw new CardsError(
      'KEY_FORMAT',
      `key name "${name}": must be non-empty, without spaces or "+"`,
    );
  }
}

const badKey = (shown: string, why: string): CardsError =>
  new CardsError('KEY_FORMAT', `note key ${shown.slice(0, 80)}: ${why}`);

/** Ed25519 (type 0x01) note signer: a plain RFC 8032 signature over the note text. */
export function ed25519Signer(name: string, key: PrivateKey): NoteSigner {
  checkName(name);
  return {
    name,
    keyId: keyId(name, KEY_TYPE_ED25519, key.publicKey.raw),
    sign: (text) => new Uint8Array(sign(null, text, key.keyObject)),
  };
}

/** Ed25519 (type 0x01) verifier for a vkey, or for a raw public key and name. */
export function ed25519Verifier(vkeyOrName: string, raw?: Uint8Array): NoteVerifier {
  const parsed = raw
    ? { name: vkeyOrName, type: KEY_TYPE_ED25519, key: raw }
    : parseVerifierKey(vkeyOrName);
  if (parsed.type !== KEY_TYPE_ED25519) {
    throw new CardsError('KEY_FORMAT', `note key ${parsed.name}: not an Ed25519 (0x01) key`);
  }
  const publicKey = PublicKey.fromSpki(concatBytes(ED25519_SPKI_PREFIX, parsed.key));
  return {
    name: parsed.name,
    keyId: keyId(parsed.name, KEY_TYPE_ED25519, parsed.key),
    verify: (text, signature) =>
      signature.byteLength === 64 && verify(null, text, publicKey.keyObject, signature),
  };
}
