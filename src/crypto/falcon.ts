/**
 * Falcon-512 verification for the stock library's post-quantum hybrid keys, on
 * @noble/post-quantum (Falcon round 3), loaded on first use only: `cards --version`, start-up
 * and the Ed25519 path never load it.
 *
 * The stock engine (core-foundation, Falcon reference code) writes signatures in Falcon's
 * constant-time ("CT") format: header 0x50 + logn, the 40-byte nonce, then every coefficient
 * of s2 as a 12-bit two's-complement value (809 bytes for Falcon-512). noble reads the
 * compressed format (header 0x30 + logn), so the CT encoding is re-encoded losslessly here;
 * the nonce, s2 and the hash-to-point are the same, and noble does the verification arithmetic.
 *
 * The stock engine's Falcon is the round-2 reference, whose acceptance bound on the squared
 * norm of (s1, s2) is `(7085 · q) >> (10 - logn)` = 43,533,782 for Falcon-512 (strict), where
 * round 3 (noble) accepts up to 34,034,726. Its signer keeps any signature under its own bound,
 * so about 1 in 250 stock signatures lies between the two: valid for the stock client and the
 * deployed service. A signature noble refuses is therefore checked once more, here, against the
 * round-2 bound (the Falcon specification's verification: s1 = c - s2·h mod q, c the
 * SHAKE-256 hash-to-point of nonce and message). Pure apart from the lazy import.
 */
import { createHash } from 'node:crypto';
import { CardsError } from '../core/errors.js';

const LOGN = 9;
const N = 1 << LOGN;
const NONCE_LENGTH = 40;
const CT_BITS = 12; // max_sig_bits[9] in the Falcon reference code
/** Falcon-512 CT signature: header + nonce + 512 × 12 bits. */
const FALCON512_CT_LENGTH = 1 + NONCE_LENGTH + (N * CT_BITS) / 8; // 809
/** Falcon-512 public key: header 0x09 + 512 × 14 bits. */
export const FALCON512_PUBLIC_KEY_LENGTH = 897;

const Q = 12289;
/** The round-2 reference's bound for logn 9: ||(s1, s2)||² must be below it. */
const ROUND2_L2_BOUND = (7085 * Q) >> (10 - LOGN); // 43,533,782

type FalconModule = typeof import('@noble/post-quantum/falcon.js');
let loading: Promise<FalconModule> | undefined;

const bad = (why: string): never => {
  throw new CardsError('SIGNATURE_INVALID', `Falcon-512 signature: ${why}`);
};

/** The CT signature's s2 coefficients (the reference's trim_i16_decode, equally strict). */
function decodeCt(signature: Uint8Array): Int16Array {
  if (signature.byteLength !== FALCON512_CT_LENGTH)
    bad(`expected ${FALCON512_CT_LENGTH} bytes (CT format), got ${signature.byteLength}`);
  if (signature[0] !== 0x50 + LOGN)
    bad(`header 0x${(signature[0] ?? 0).toString(16)}, expected 0x59 (CT format, logn 9)`);
  const s2 = new Int16Array(N);
  let acc = 0;
  let bits = 0;
  let at = 1 + NONCE_LENGTH;
  for (let i = 0; i < N; i++) {
    while (bits < CT_BITS) {
      acc = ((acc << 8) | (signature[at++] ?? 0)) & 0xffffff;
      bits += 8;
    }
    bits -= CT_BITS;
    let w = (acc >>> bits) & 0xfff;
    if (w & 0x800) w -= 0x1000;
    if (w === -0x800) bad('coefficient out of range');
    s2[i] = w;
  }
  return s2;
}

/** Falcon's compressed encoding (comp_encode): sign, low 7 bits, high bits in unary. */
function encodeCompressed(nonce: Uint8Array, s2: Int16Array): Uint8Array {
  const out: number[] = [0x30 + LOGN, ...nonce];
  let acc = 0;
  let bits = 0;
  const put = (value: number, count: number): void => {
    acc = ((acc << count) | value) & 0xffff;
    bits += count;
    while (bits >= 8) {
      bits -= 8;
      out.push((acc >>> bits) & 0xff);
    }
  };
  for (const x of s2) {
    const t = Math.abs(x);
    put(x < 0 ? 1 : 0, 1);
    put(t & 0x7f, 7);
    for (let high = t >> 7; high > 0; high--) put(0, 1);
    put(1, 1);
  }
  if (bits > 0) put(0, 8 - bits);
  return Uint8Array.from(out);
}

/**
 * Verifies a Falcon-512 CT-format signature over `message` (the stock library signs the
 * 64-byte SHA-512 digest of the card parts). Throws SIGNATURE_INVALID for a malformed value.
 */
export async function verifyFalcon512(
  publicKey: Uint8Array,
  signature: Uint8Array,
  message: Uint8Array,
): Promise<boolean> {
  const s2 = decodeCt(signature);
  const compressed = encodeCompressed(signature.subarray(1, 1 + NONCE_LENGTH), s2);
  const { falcon512 } = await (loading ??= import('@noble/post-quantum/falcon.js'));
  if (falcon512.verify(compressed, message, publicKey)) return true;
  const h = decodePublicKey(publicKey);
  if (h === undefined) return false;
  return (
    squaredNorm(h, s2, hashToPoint(signature.subarray(1, 1 + NONCE_LENGTH), message)) <
    ROUND2_L2_BOUND
  );
}

/** The 512 coefficients of h (14 bits each after the 0x09 header); undefined if one is ≥ q. */
function decodePublicKey(publicKey: Uint8Array): Int32Array | undefined {
  if (publicKey.byteLength !== FALCON512_PUBLIC_KEY_LENGTH || publicKey[0] !== LOGN) return;
  const h = new Int32Array(N);
  let acc = 0;
  let bits = 0;
  let at = 1;
  for (let i = 0; i < N; i++) {
    while (bits < 14) {
      acc = ((acc << 8) | (publicKey[at++] ?? 0)) & 0xffffff;
      bits += 8;
    }
    bits -= 14;
    const value = (acc >>> bits) & 0x3fff;
    if (value >= Q) return;
    h[i] = value;
  }
  return h;
}

/** HashToPoint: SHAKE-256 of nonce ‖ message read as 16-bit big-endian values below 5q, mod q. */
function hashToPoint(nonce: Uint8Array, message: Uint8Array): Int32Array {
  const c = new Int32Array(N);
  // The XOF's output of any length starts with its shorter outputs: a longer one resumes.
  for (let length = 2048; ; length *= 2) {
    const stream = createHash('shake256', { outputLength: length })
      .update(nonce)
      .update(message)
      .digest();
    let filled = 0;
    for (let at = 0; at + 1 < stream.length && filled < N; at += 2) {
      const t = (stream[at]! << 8) | stream[at + 1]!;
      if (t < 5 * Q) c[filled++] = t % Q;
    }
    if (filled === N) return c;
  }
}

/**
 * ||(s1, s2)||² with s1 = c - s2·h in Z_q[x]/(x^n + 1), each s1 coefficient taken in
 * (-q/2, q/2]. Schoolbook product: |s2| < 2048 and h < q keep every sum exact in a double.
 */
function squaredNorm(h: Int32Array, s2: Int16Array, c: Int32Array): number {
  const product = new Float64Array(N);
  for (let i = 0; i < N; i++) {
    const si = s2[i]!;
    if (si === 0) continue;
    for (let j = 0; j < N; j++) {
      const k = i + j;
      if (k < N) product[k]! += si * h[j]!;
      else product[k - N]! -= si * h[j]!;
    }
  }
  let norm = 0;
  for (let k = 0; k < N; k++) {
    let s1 = (c[k]! - product[k]!) % Q;
    if (s1 < 0) s1 += Q;
    if (s1 > Q >> 1) s1 -= Q;
    norm += s1 * s1 + s2[k]! * s2[k]!;
  }
  return norm;
}
