/**
 * The shape of an RFC 6962 / RFC 9162 Merkle tree, without any hash storage: which complete
 * subtrees (stored hashes) a tree hash, an inclusion proof (RFC 9162 section 2.1.3.1) or a
 * consistency proof (section 2.1.4.1) is made of, and how to fold them back.
 *
 * A complete subtree `{ level, index }` covers leaves [index·2^level, (index+1)·2^level). Every
 * node of the RFC's recursion, D[lo:hi], is a run of such subtrees of decreasing size (it splits at
 * the largest power of two below its size), so its hash is their right fold. Sizes are JavaScript
 * numbers (exact to 2^53), so no 32-bit bit operators appear here.
 */
import { nodeHash } from './hash.js';

export interface SubtreeId {
  readonly level: number;
  readonly index: number;
}

/** A node D[lo:hi] of the RFC recursion. */
export interface Range {
  readonly lo: number;
  readonly hi: number;
}

/** The largest power of two strictly below n (n ≥ 2): the split point k of RFC 9162 2.1.1. */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** The complete subtrees that make up D[lo:hi], left to right (largest first). */
export function decompose(range: Range): SubtreeId[] {
  const ids: SubtreeId[] = [];
  let lo = range.lo;
  while (lo < range.hi) {
    let level = 0;
    let width = 1;
    // Grow while the subtree stays aligned at lo and inside the range.
    while (lo % (width * 2) === 0 && lo + width * 2 <= range.hi) {
      level++;
      width *= 2;
    }
    ids.push({ level, index: lo / width });
    lo += width;
  }
  return ids;
}

/** MTH of a run of complete subtrees, left to right: the right fold of RFC 9162 2.1.1. */
export function foldHashes(hashes: readonly Uint8Array[]): Uint8Array {
  let i = hashes.length - 1;
  let acc = hashes[i];
  if (!acc) throw new RangeError('foldHashes: no hashes');
  while (--i >= 0) acc = nodeHash(hashes[i] as Uint8Array, acc);
  return acc;
}

/** The ranges whose MTHs form PATH(m, D[0:n]), leaf's sibling first (RFC 9162 2.1.3.1). */
export function inclusionRanges(m: number, n: number): Range[] {
  if (!(Number.isSafeInteger(m) && Number.isSafeInteger(n) && m >= 0 && m < n)) {
    throw new RangeError(`inclusion proof: index ${m} is not in a tree of size ${n}`);
  }
  const out: Range[] = [];
  let lo = 0;
  let hi = n;
  // Walk from the root down; each step's sibling is nearer the root, so prepend.
  while (hi - lo > 1) {
    const k = splitPoint(hi - lo);
    if (m < lo + k) {
      out.push({ lo: lo + k, hi });
      hi = lo + k;
    } else {
      out.push({ lo, hi: lo + k });
      lo += k;
    }
  }
  return out.reverse();
}

/** The ranges whose MTHs form PROOF(m, D[0:n]) (RFC 9162 2.1.4.1); empty when m is 0 or n. */
export function consistencyRanges(m: number, n: number): Range[] {
  if (!(Number.isSafeInteger(m) && Number.isSafeInteger(n) && m >= 0 && m <= n)) {
    throw new RangeError(`consistency proof: old size ${m} is not within new size ${n}`);
  }
  if (m === 0 || m === n) return [];
  const out: Range[] = [];
  let lo = 0;
  let hi = n;
  let complete = true; // the RFC's flag b: D[lo:lo+m] is a subtree already known to the verifier
  let mm = m;
  for (;;) {
    if (mm === hi - lo) {
      if (!complete) out.push({ lo, hi });
      break;
    }
    const k = splitPoint(hi - lo);
    if (mm <= k) {
      out.push({ lo: lo + k, hi });
      hi = lo + k;
    } else {
      out.push({ lo, hi: lo + k });
      lo += k;
      mm -= k;
      complete = false;
    }
  }
  return out.reverse();
}

/** The subtrees of every range, flattened, with where each range's run starts. */
export function planRanges(ranges: readonly Range[]): { ids: SubtreeId[]; starts: number[] } {
  const ids: SubtreeId[] = [];
  const starts: number[] = [];
  for (const range of ranges) {
    starts.push(ids.length);
    ids.push(...decompose(range));
  }
  starts.push(ids.length);
  return { ids, starts };
}

/** Folds the hashes read for `planRanges(ranges)` back into one MTH per range. */
export function foldPlan(hashes: readonly Uint8Array[], starts: readonly number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let r = 0; r + 1 < starts.length; r++) {
    out.push(foldHashes(hashes.slice(starts[r], starts[r + 1])));
  }
  return out;
}

/** The complete subtrees of a tree of size n, left to right: its right edge ("frontier"). */
export const frontierIds = (n: number): SubtreeId[] => decompose({ lo: 0, hi: n });
