/**
 * RSA public keys with any exponent, written as DER SubjectPublicKeyInfo by hand (RFC 8017
 * appendix A.1.1, RFC 5280 section 4.1): node:crypto only makes keys with small exponents, and
 * a hostile card key has a huge one. For the tests and the key-type bench.
 */
import { generateKeyPairSync } from 'node:crypto';

/** One DER element: tag, definite length, body. */
export const der = (tag: number, body: Uint8Array): Uint8Array => {
  const n = body.byteLength;
  const length =
    n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : n < 0x10000 ? [0x82, n >> 8, n & 0xff] : [];
  if (length.length === 0) throw new RangeError('too long');
  return Uint8Array.from([tag, ...length, ...body]);
};

/** A DER INTEGER of a positive big-endian magnitude. */
const integer = (magnitude: Uint8Array): Uint8Array => {
  let start = 0;
  while (start < magnitude.byteLength - 1 && magnitude[start] === 0) start++;
  const bytes = magnitude.subarray(start);
  return der(0x02, (bytes[0] ?? 0) & 0x80 ? Uint8Array.from([0, ...bytes]) : bytes);
};

const bigBytes = (value: bigint): Uint8Array => {
  const hex = value.toString(16);
  return Uint8Array.from(Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex'));
};

/** SEQUENCE { rsaEncryption, NULL } */
const RSA_ALGORITHM = Uint8Array.from(Buffer.from('300d06092a864886f70d0101010500', 'hex'));

/** The SPKI of the RSA key (n, e). */
export function rsaSpki(modulus: Uint8Array, exponent: bigint): Uint8Array {
  const key = der(0x30, Uint8Array.from([...integer(modulus), ...integer(bigBytes(exponent))]));
  const bits = der(0x03, Uint8Array.from([0, ...key]));
  return der(0x30, Uint8Array.from([...RSA_ALGORITHM, ...bits]));
}

/** The modulus of a fresh RSA key of `bits` bits. */
export function rsaModulus(bits: number): Uint8Array {
  const { publicKey } = generateKeyPairSync('rsa', { modulusLength: bits });
  return Uint8Array.from(Buffer.from(String(publicKey.export({ format: 'jwk' }).n), 'base64url'));
}

/** An odd exponent of exactly `bits` bits (the top bit set), from a fixed pattern. */
export function bigExponent(bits: number): bigint {
  return (1n << BigInt(bits - 1)) | ((1n << BigInt(bits - 2)) / 3n) | 1n;
}
