/**
 * Card keys of every type the stock crypto library (virgil-crypto 5, engine core-foundation)
 * can publish, read from the card's SPKI, and the check of a signature made with each
 * (spec 2.3 rule 2; formats learnt from stock-made cards, fixtures/stock-client-key-types.json).
 * Every type signs the 64-byte SHA-512 digest of snapshot ‖ extra snapshot, and every signature
 * travels in the same wrapper: SEQUENCE { AlgorithmIdentifier sha512, OCTET STRING inner }.
 *
 * - Ed25519: the 44-byte SPKI; the fast path of ed25519.ts.
 * - SECP256R1: ECDSA P-256 over SHA-512, inner = DER ECDSA-Sig-Value (node:crypto).
 * - RSA 2048-8192: RSASSA-PSS, SHA-512, MGF1-SHA-512, 64-byte salt (node:crypto).
 * - CURVE25519_ED25519: compound key (X25519 to encrypt, Ed25519 to sign); plain Ed25519 signature.
 * - CURVE25519_ROUND5_ED25519_FALCON: compound of hybrid keys; the signature holds an Ed25519
 *   and a Falcon-512 signature, and both must verify (Falcon through falcon.ts, lazily).
 * - CURVE25519 alone cannot sign (the stock library aborts): refused as KEY_TYPE_UNSUPPORTED.
 *
 * The cost of a check is bounded when the key is read, before any signature is verified:
 * Ed25519 and P-256 are one fixed curve each; a compound key's signing parts have fixed lengths
 * (32-byte Ed25519, 897-byte Falcon-512 key, 809-byte Falcon signature); an RSA key must have a
 * 2048-8192-bit modulus and the exponent 65537 (RSA_F4, what every stock client makes), read
 * from its DER before OpenSSL parses it, and its signature the modulus's length. OpenSSL's RSA
 * verification grows with the exponent's bits: a 3,060-bit exponent costs sixty times a normal
 * check and more, so one replayed card could slow a server tenfold (bench/key-types.mjs
 * measures the refusal against the others).
 * Pure; never stores or trusts a key whose type it cannot check.
 */
import { constants, createPublicKey, createVerify, verify, type KeyObject } from 'node:crypto';
import { CardsError } from '../core/errors.js';
import { concatBytes, decodeHex } from '../core/encoding.js';
import { oidToString, readDer, readOnly, readSequence, TAG } from './asn1.js';
import { ED25519_SPKI_PREFIX, isEd25519Spki, SHA512_ALGORITHM } from './der.js';
import { sha512, verifyParts } from './ed25519.js';
import { FALCON512_PUBLIC_KEY_LENGTH, verifyFalcon512 } from './falcon.js';
import { PublicKey } from './keys.js';

type CardKeyType =
  'ed25519' | 'secp256r1' | 'rsa' | 'curve25519-ed25519' | 'curve25519-round5-ed25519-falcon';

export interface CardKey {
  readonly type: CardKeyType;
  /** The signature algorithm in words ("ECDSA P-256 with SHA-512"), for verdicts. */
  readonly algorithm: string;
  /** true/false for a well-formed signature; throws SIGNATURE_INVALID for a malformed one. */
  verify(signature: Uint8Array, ...parts: Uint8Array[]): boolean | Promise<boolean>;
}

const hex = (text: string): Uint8Array => decodeHex(text) as Uint8Array;
const same = (a: Uint8Array, b: Uint8Array): boolean =>
  a.byteLength === b.byteLength && a.every((x, i) => x === b[i]);

/** AlgorithmIdentifiers as the stock library writes them (whole DER elements). */
const ALG = {
  x25519: hex('300506032b656e'),
  p256: hex('301306072a8648ce3d020106082a8648ce3d030107'),
  rsa: hex('300d06092a864886f70d0101010500'),
  /** 1.3.6.1.4.1.54811.1.1 (compound) { X25519, Ed25519 } */
  compoundEd25519: hex('301c060a2b0601040183ac1b0101300e300506032b656e300506032b6570'),
  /** compound { hybrid { X25519, Round5 (…54811.2.2.9) }, hybrid { Ed25519, Falcon (…54811.2.1) } } */
  compoundFalcon: hex(
    '3059060a2b0601040183ac1b0101304b3024060a2b0601040183ac1b01023016300506032b656e300d060b2b0601040183ac1b0202093023060a2b0601040183ac1b01023015300506032b6570300c060a2b0601040183ac1b0201',
  ),
};

const keyError = (message: string): CardsError => new CardsError('KEY_FORMAT', message);

/** The inner signature of the wrapper (any length); SIGNATURE_INVALID when it is not one. */
function unwrap(signature: Uint8Array, algorithm: string): Uint8Array {
  try {
    const [alg, inner] = readSequence(signature, [TAG.sequence, TAG.octetString], 'signature');
    if (alg && inner && same(alg.bytes, SHA512_ALGORITHM)) return inner.value;
  } catch {
    // reported below, naming the algorithm
  }
  throw new CardsError(
    'SIGNATURE_INVALID',
    `signature: not the ${algorithm} signature wrapper (DER SEQUENCE of the SHA-512 OID and an OCTET STRING)`,
  );
}

function ed25519Key(key: PublicKey, type: CardKeyType = 'ed25519', algorithm = 'Ed25519'): CardKey {
  return { type, algorithm, verify: (sig, ...parts) => verifyParts(key, sig, ...parts) };
}

function nodeKey(spki: Uint8Array, what: string): KeyObject {
  try {
    return createPublicKey({ key: Buffer.from(spki), format: 'der', type: 'spki' });
  } catch (cause) {
    throw new CardsError('KEY_FORMAT', `public key: not a ${what} key OpenSSL accepts`, { cause });
  }
}

function p256Key(spki: Uint8Array): CardKey {
  const key = nodeKey(spki, 'P-256');
  const algorithm = 'ECDSA P-256 with SHA-512';
  return {
    type: 'secp256r1',
    algorithm,
    verify(signature, ...parts) {
      const inner = unwrap(signature, algorithm);
      const verifier = createVerify('sha512');
      for (const part of parts) verifier.update(part);
      return verifier.verify({ key, dsaEncoding: 'der' }, inner);
    },
  };
}

/** The one RSA public exponent accepted, as its DER INTEGER's content: 65537 (RSA_F4). */
const RSA_F4 = Uint8Array.of(0x01, 0x00, 0x01);

/** Bits of a big-endian unsigned magnitude (leading zero bytes skipped). */
function bitLength(magnitude: Uint8Array): number {
  let at = 0;
  while (at < magnitude.byteLength && magnitude[at] === 0) at++;
  if (at === magnitude.byteLength) return 0;
  return (magnitude.byteLength - at - 1) * 8 + (32 - Math.clz32(magnitude[at] ?? 0));
}

const describeExponent = (e: Uint8Array): string =>
  e.byteLength <= 4
    ? String(e.reduce((value, byte) => value * 256 + byte, 0))
    : `of ${bitLength(e)} bits`;

/**
 * An RSA key, its size read from its DER (RSAPublicKey, RFC 8017 appendix A.1.1) before
 * OpenSSL sees it: a 2048-8192-bit modulus and the exponent 65537, else KEY_TYPE_UNSUPPORTED.
 */
function rsaKey(spki: Uint8Array, keyBits: Uint8Array): CardKey {
  const [n, e] = readSequence(keyBits, [TAG.integer, TAG.integer], 'RSA public key');
  const bits = bitLength(n?.value ?? new Uint8Array());
  if (bits < 2048 || bits > 8192)
    throw new CardsError(
      'KEY_TYPE_UNSUPPORTED',
      `the card key is RSA-${bits}; RSA keys of 2048 to 8192 bits are supported (the stock client's RSA_2048 … RSA_8192)`,
    );
  const exponent = e?.value ?? new Uint8Array();
  if (!same(exponent, RSA_F4))
    throw new CardsError(
      'KEY_TYPE_UNSUPPORTED',
      `the card key is RSA with the public exponent ${describeExponent(exponent)}; only the exponent 65537 is supported (what the stock clients make)`,
    );
  const key = nodeKey(spki, 'RSA');
  if (key.asymmetricKeyDetails?.modulusLength !== bits)
    throw keyError('public key: OpenSSL reads another RSA modulus than its DER holds');
  const algorithm = `RSA-${bits} PSS with SHA-512`;
  const length = Math.ceil(bits / 8);
  return {
    type: 'rsa',
    algorithm,
    verify(signature, ...parts) {
      const inner = unwrap(signature, algorithm);
      if (inner.byteLength !== length)
        throw new CardsError(
          'SIGNATURE_INVALID',
          `signature: an ${algorithm} signature is ${length} bytes, got ${inner.byteLength}`,
        );
      const verifier = createVerify('sha512');
      for (const part of parts) verifier.update(part);
      const options = { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 64 };
      return verifier.verify(options, inner);
    },
  };
}

/** An Ed25519 key from its 32 raw bytes (inside a compound key). */
const rawEd25519 = (raw: Uint8Array): PublicKey =>
  PublicKey.fromSpki(concatBytes(ED25519_SPKI_PREFIX, raw));

function compoundEd25519Key(keyBits: Uint8Array): CardKey {
  const [cipher, signer] = readSequence(keyBits, [TAG.octetString, TAG.octetString], 'public key');
  if (cipher?.value.byteLength !== 32 || signer?.value.byteLength !== 32)
    throw keyError('public key: compound Curve25519/Ed25519 key parts must be 32 bytes each');
  return ed25519Key(
    rawEd25519(signer.value),
    'curve25519-ed25519',
    'Ed25519 (compound Curve25519 + Ed25519 key)',
  );
}

function compoundFalconKey(keyBits: Uint8Array): CardKey {
  const [cipher, signer] = readSequence(keyBits, [TAG.octetString, TAG.octetString], 'public key');
  readSequence(cipher?.value ?? new Uint8Array(), [TAG.octetString, TAG.octetString], 'cipher key');
  const [ed, falcon] = readSequence(
    signer?.value ?? new Uint8Array(),
    [TAG.octetString, TAG.octetString],
    'signer key',
  );
  if (ed?.value.byteLength !== 32) throw keyError('public key: Ed25519 part must be 32 bytes');
  if (falcon?.value.byteLength !== FALCON512_PUBLIC_KEY_LENGTH || falcon.value[0] !== 0x09)
    throw keyError(
      `public key: Falcon part must be a ${FALCON512_PUBLIC_KEY_LENGTH}-byte Falcon-512 key (header 0x09)`,
    );
  const edKey = rawEd25519(ed.value);
  const falconKey = new Uint8Array(falcon.value);
  const algorithm = 'Ed25519 + Falcon-512 hybrid (compound Curve25519/Round5 + Ed25519/Falcon key)';
  return {
    type: 'curve25519-round5-ed25519-falcon',
    algorithm,
    async verify(signature, ...parts) {
      let pair;
      try {
        pair = readSequence(unwrap(signature, algorithm), [TAG.octetString, TAG.octetString], 'x');
      } catch (err) {
        if (err instanceof CardsError && err.code === 'SIGNATURE_INVALID') throw err;
        throw new CardsError('SIGNATURE_INVALID', `signature: not an ${algorithm} signature`);
      }
      const [edSig, falconSig] = pair;
      if (edSig?.value.byteLength !== 64 || !falconSig)
        throw new CardsError('SIGNATURE_INVALID', 'signature: the Ed25519 part must be 64 bytes');
      const digest = sha512(...parts);
      // Both halves must hold; the cheap one first, and Falcon is loaded only when needed.
      if (!verify(null, digest, edKey.keyObject, edSig.value)) return false;
      return verifyFalcon512(falconKey, falconSig.value, digest);
    },
  };
}

/**
 * The card key of `spki`. Throws KEY_FORMAT for a key that is not what its algorithm says and
 * KEY_TYPE_UNSUPPORTED, naming the type, for one that cannot sign or is unknown.
 */
export function readCardKey(spki: Uint8Array): CardKey {
  if (isEd25519Spki(spki) === 'yes') return ed25519Key(PublicKey.fromSpki(spki));
  const [alg, bits] = readSequence(spki, [TAG.sequence, TAG.bitString], 'public key');
  if (!alg || !bits || bits.value[0] !== 0)
    throw keyError('public key: not a DER SubjectPublicKeyInfo');
  const keyBits = bits.value.subarray(1);
  if (same(alg.bytes, ALG.p256)) return p256Key(spki);
  if (same(alg.bytes, ALG.rsa)) return rsaKey(spki, keyBits);
  if (same(alg.bytes, ALG.compoundEd25519)) return compoundEd25519Key(keyBits);
  if (same(alg.bytes, ALG.compoundFalcon)) return compoundFalconKey(keyBits);
  if (same(alg.bytes, ALG.x25519))
    throw new CardsError(
      'KEY_TYPE_UNSUPPORTED',
      'the card key is a Curve25519 (X25519) key, which can only encrypt: it cannot make the self signature (the stock client cannot sign with it either); use ED25519 or CURVE25519_ED25519',
    );
  if (isEd25519Spki(spki) === 'malformed')
    throw keyError('public key: names Ed25519 but is not the 44-byte Ed25519 SPKI');
  const oid = readOnly(readDer(alg.value, 0, 'algorithm').bytes, TAG.oid, 'algorithm');
  throw new CardsError(
    'KEY_TYPE_UNSUPPORTED',
    `the card key's algorithm ${oidToString(oid.value)} is not one of the supported key types (Ed25519, P-256, RSA 2048-8192, Curve25519+Ed25519, Curve25519/Round5+Ed25519/Falcon)`,
  );
}
