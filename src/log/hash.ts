/**
 * RFC 6962 / RFC 9162 section 2.1.1 Merkle tree hashing with SHA-256: the leaf hash
 * SHA-256(0x00 ‖ entry), the node hash SHA-256(0x01 ‖ left ‖ right), and the hash of the empty
 * tree SHA-256(""). Bytes in, bytes out; never touches I/O.
 */
import { createHash, hash } from 'node:crypto';

export const HASH_SIZE = 32;

const LEAF_PREFIX = new Uint8Array([0x00]);
const NODE_PREFIX = new Uint8Array([0x01]);

export function sha256(...parts: Uint8Array[]): Uint8Array {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return new Uint8Array(hash.digest());
}

/** MTH({d(0)}) = SHA-256(0x00 ‖ d(0)) (RFC 9162 section 2.1.1), hashed one-shot. */
export function leafHash(entry: Uint8Array): Uint8Array {
  const input = Buffer.allocUnsafe(1 + entry.byteLength);
  input.set(LEAF_PREFIX);
  input.set(entry, 1);
  const out = hash('sha256', input, 'buffer');
  return new Uint8Array(out.buffer, out.byteOffset, HASH_SIZE);
}

/** The input of a node hash, reused: proofs and tiles hash many nodes, one at a time. */
const NODE_INPUT = new Uint8Array(1 + 2 * HASH_SIZE);
NODE_INPUT.set(NODE_PREFIX);

/** SHA-256(0x01 ‖ MTH(left) ‖ MTH(right)) (RFC 9162 section 2.1.1). */
export function nodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  if (left.byteLength !== HASH_SIZE || right.byteLength !== HASH_SIZE)
    return sha256(NODE_PREFIX, left, right);
  NODE_INPUT.set(left, 1);
  NODE_INPUT.set(right, 1 + HASH_SIZE);
  // One-shot hashing: a third of the cost of a Hash object for 65 bytes.
  const out = hash('sha256', NODE_INPUT, 'buffer');
  return new Uint8Array(out.buffer, out.byteOffset, HASH_SIZE);
}

/** MTH({}) = SHA-256() (RFC 9162 section 2.1.1): the root of a tree with no entries. */
export const EMPTY_ROOT: Uint8Array = sha256();

export function equalHashes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  let diff = 0;
  for (let i = 0; i < a.byteLength; i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}
