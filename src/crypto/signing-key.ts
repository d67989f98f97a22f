/**
 * Card owner keys other than Ed25519 that the CLI can make and sign with, in the stock crypto
 * library's formats (card-key.ts verifies them): ECDSA P-256 and RSA (PSS, 64-byte salt), both
 * over SHA-512, the inner signature in the SHA-512 wrapper. Ed25519 stays `PrivateKey`
 * (keys.ts), the default. The compound and post-quantum types are made by the stock client
 * only: node:crypto cannot generate Falcon or Round5 keys. Pure (node:crypto only).
 */
import {
  constants,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign,
  type KeyObject,
} from 'node:crypto';
import { CardsError } from '../core/errors.js';
import { concatBytes, decodeBase64, encodeBase64 } from '../core/encoding.js';
import { ED25519_PKCS8_LENGTH, ED25519_PKCS8_PREFIX, SHA512_ALGORITHM } from './der.js';
import { generatePrivateKey, parsePrivateKey, PrivateKey } from './keys.js';

/** `cards keygen --type` values. */
export const KEY_TYPES = ['ed25519', 'p256', 'rsa2048', 'rsa3072', 'rsa4096', 'rsa8192'] as const;
export type KeyTypeName = (typeof KEY_TYPES)[number];

/** DER length octets for `n` (definite form). */
function derLength(n: number): Uint8Array {
  if (n < 0x80) return Uint8Array.of(n);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Uint8Array.of(0x80 | bytes.length, ...bytes);
}
const der = (tag: number, value: Uint8Array): Uint8Array =>
  concatBytes(Uint8Array.of(tag), derLength(value.byteLength), value);

/** SEQUENCE { sha512 AlgorithmIdentifier, OCTET STRING inner }: the stock signature wrapper. */
function wrapInnerSignature(inner: Uint8Array): Uint8Array {
  return der(0x30, concatBytes(SHA512_ALGORITHM, der(0x04, inner)));
}

export class OtherPrivateKey {
  readonly type: 'secp256r1' | 'rsa';
  readonly keyObject: KeyObject;
  readonly publicKey: { readonly spki: Uint8Array; toBase64(): string; toPem(): string };

  constructor(keyObject: KeyObject) {
    const kind = keyObject.asymmetricKeyType;
    const curve = keyObject.asymmetricKeyDetails?.namedCurve;
    const bits = keyObject.asymmetricKeyDetails?.modulusLength ?? 0;
    if (kind === 'ec' && curve === 'prime256v1') this.type = 'secp256r1';
    else if (kind === 'rsa' && bits >= 2048 && bits <= 8192) this.type = 'rsa';
    else
      throw new CardsError(
        'KEY_FORMAT',
        `private key: a ${kind ?? 'unknown'}${curve ? ` ${curve}` : ''}${bits ? `-${bits}` : ''} key; card keys are Ed25519, P-256 or RSA 2048-8192`,
      );
    this.keyObject = keyObject;
    const publicObject = createPublicKey(keyObject);
    const spki = new Uint8Array(publicObject.export({ format: 'der', type: 'spki' }));
    this.publicKey = {
      spki,
      toBase64: () => encodeBase64(spki),
      toPem: () => publicObject.export({ format: 'pem', type: 'spki' }).toString(),
    };
  }

  /** The stock library's signature over SHA-512(parts), in the SHA-512 wrapper. */
  signParts(...parts: Uint8Array[]): Uint8Array {
    const data = concatBytes(...parts);
    const inner =
      this.type === 'rsa'
        ? sign('sha512', data, {
            key: this.keyObject,
            padding: constants.RSA_PKCS1_PSS_PADDING,
            saltLength: 64,
          })
        : sign('sha512', data, { key: this.keyObject, dsaEncoding: 'der' });
    return wrapInnerSignature(new Uint8Array(inner));
  }

  toPem(): string {
    return this.keyObject.export({ format: 'pem', type: 'pkcs8' }).toString();
  }
}

/** A card owner's private key of any type the CLI signs with. */
export type CardPrivateKey = PrivateKey | OtherPrivateKey;

export function generateCardKey(type: KeyTypeName = 'ed25519'): CardPrivateKey {
  if (type === 'ed25519') return generatePrivateKey();
  if (type === 'p256')
    return new OtherPrivateKey(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey);
  const bits = Number(type.slice(3));
  return new OtherPrivateKey(generateKeyPairSync('rsa', { modulusLength: bits }).privateKey);
}

/** The `--type` that makes a key like `key`; undefined for an RSA size `--type` does not offer. */
export function keyTypeOf(key: CardPrivateKey): KeyTypeName | undefined {
  if (!isOtherKey(key)) return 'ed25519';
  if (key.type === 'secp256r1') return 'p256';
  const name = `rsa${key.keyObject.asymmetricKeyDetails?.modulusLength ?? 0}`;
  return KEY_TYPES.find((type) => type === name);
}

const PEM_LABEL = /^-----BEGIN ([A-Z0-9 ]+)-----/;

/**
 * Reads a card key file: Ed25519 exactly as `parsePrivateKey` (PEM or base64 DER PKCS#8);
 * P-256 or RSA as PEM (PKCS#8, "EC PRIVATE KEY", "RSA PRIVATE KEY") or base64 DER (PKCS#8,
 * SEC1 or PKCS#1, what the stock library's exportPrivateKey writes).
 */
export function parseCardPrivateKey(text: string): CardPrivateKey {
  const trimmed = text.trim();
  const label = PEM_LABEL.exec(trimmed)?.[1];
  const derBytes = label === undefined ? decodeBase64(trimmed) : undefined;
  const isEd25519 =
    label === 'PRIVATE KEY'
      ? ED25519_PKCS8_PREFIX.every((b, i) => decodeBase64(pemBody(trimmed))?.[i] === b)
      : derBytes?.byteLength === ED25519_PKCS8_LENGTH;
  if (isEd25519 || (label === undefined && derBytes === undefined)) return parsePrivateKey(text);
  if (label !== undefined && !/PRIVATE KEY$/.test(label)) return parsePrivateKey(text);
  for (const type of label === undefined ? (['pkcs8', 'sec1', 'pkcs1'] as const) : [undefined]) {
    try {
      const keyObject =
        type === undefined
          ? createPrivateKey(trimmed)
          : createPrivateKey({ key: Buffer.from(derBytes as Uint8Array), format: 'der', type });
      if (keyObject.asymmetricKeyType === 'ed25519') return PrivateKey.fromKeyObject(keyObject);
      return new OtherPrivateKey(keyObject);
    } catch (err) {
      if (err instanceof CardsError) throw err;
    }
  }
  return parsePrivateKey(text); // refuses, naming the accepted formats
}

const pemBody = (pem: string): string =>
  pem
    .split(/\r?\n/)
    .filter((line) => !line.startsWith('-----'))
    .join('');

/** Ed25519 keys go through the fast path of ed25519.ts; others sign themselves. */
export const isOtherKey = (key: CardPrivateKey): key is OtherPrivateKey =>
  key instanceof OtherPrivateKey;
