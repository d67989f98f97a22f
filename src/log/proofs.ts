/**
 * Tree hashes, inclusion proofs and consistency proofs (RFC 9162 sections 2.1.3 and 2.1.4),
 * generated from stored subtree hashes read in one batch through a `HashReader` (tiles, a table,
 * memory), and verified with the RFC's own algorithms from the proof alone.
 *
 * Verification never throws for a bad proof: it returns false. Generation throws RangeError for
 * an index or size outside the tree (a caller bug, not a client's input).
 */
import { EMPTY_ROOT, HASH_SIZE, equalHashes, nodeHash } from './hash.js';
import {
  consistencyRanges,
  foldHashes,
  foldPlan,
  frontierIds,
  inclusionRanges,
  planRanges,
  type SubtreeId,
} from './tree.js';

/** Reads stored hashes of complete subtrees, in the order asked. */
export interface HashReader {
  readHashes(ids: readonly SubtreeId[]): Promise<Uint8Array[]>;
}

/** MTH(D[0:n]), the root a checkpoint of size n carries. */
export async function treeHash(size: number, reader: HashReader): Promise<Uint8Array> {
  if (size === 0) return EMPTY_ROOT;
  return foldHashes(await reader.readHashes(frontierIds(size)));
}

/**
 * PATH(index, D[0:size]): the inclusion proof, leaf's sibling first. `edge` (optional) keeps the
 * hashes of ranges that end at `size`, by their start, for proofs in the same tree: those ranges
 * are the right edge of the tree, shared by every proof and the only ones that need hashing
 * (the others are single stored subtrees), so a proof after the first few hashes nothing.
 */
export async function inclusionProof(
  index: number,
  size: number,
  reader: HashReader,
  edge?: Map<number, Uint8Array>,
): Promise<Uint8Array[]> {
  const ranges = inclusionRanges(index, size);
  const known = ranges.map((range) => (range.hi === size ? edge?.get(range.lo) : undefined));
  const { ids, starts } = planRanges(ranges.filter((_, i) => known[i] === undefined));
  const read = foldPlan(await reader.readHashes(ids), starts);
  let next = 0;
  return ranges.map((range, i) => {
    const hash = known[i] ?? (read[next++] as Uint8Array);
    if (range.hi === size) edge?.set(range.lo, hash);
    return hash;
  });
}

/** PROOF(oldSize, D[0:newSize]): the consistency proof; empty for oldSize 0 or newSize. */
export async function consistencyProof(
  oldSize: number,
  newSize: number,
  reader: HashReader,
): Promise<Uint8Array[]> {
  const { ids, starts } = planRanges(consistencyRanges(oldSize, newSize));
  return foldPlan(await reader.readHashes(ids), starts);
}

const isSize = (n: number): boolean => Number.isSafeInteger(n) && n >= 0;
const wellFormed = (proof: readonly Uint8Array[]): boolean =>
  proof.every((h) => h.byteLength === HASH_SIZE);

/** RFC 9162 section 2.1.3.2: does `proof` bind the leaf hash at `index` to `root` of `size`? */
export function verifyInclusion(
  leaf: Uint8Array,
  index: number,
  size: number,
  proof: readonly Uint8Array[],
  root: Uint8Array,
): boolean {
  if (!isSize(index) || !isSize(size) || index >= size || !wellFormed(proof)) return false;
  if (leaf.byteLength !== HASH_SIZE || root.byteLength !== HASH_SIZE) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && equalHashes(r, root);
}

/**
 * RFC 9162 section 2.1.4.2: is the tree (newSize, newRoot) an append-only extension of
 * (oldSize, oldRoot)? Equal sizes need an empty proof and equal roots; old size 0 needs an empty
 * proof (the empty tree is a prefix of every tree).
 */
export function verifyConsistency(
  oldSize: number,
  newSize: number,
  oldRoot: Uint8Array,
  newRoot: Uint8Array,
  proof: readonly Uint8Array[],
): boolean {
  if (!isSize(oldSize) || !isSize(newSize) || oldSize > newSize || !wellFormed(proof)) return false;
  if (oldRoot.byteLength !== HASH_SIZE || newRoot.byteLength !== HASH_SIZE) return false;
  if (oldSize === newSize) return proof.length === 0 && equalHashes(oldRoot, newRoot);
  if (oldSize === 0) return proof.length === 0;
  if (proof.length === 0) return false;
  const path = isPowerOfTwo(oldSize) ? [oldRoot, ...proof] : [...proof];
  let fn = oldSize - 1;
  let sn = newSize - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr = path[0] as Uint8Array;
  let sr = fr;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && equalHashes(fr, oldRoot) && equalHashes(sr, newRoot);
}

function isPowerOfTwo(n: number): boolean {
  let k = 1;
  while (k < n) k *= 2;
  return k === n;
}
