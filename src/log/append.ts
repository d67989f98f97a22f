/**
 * Appending to a tiled log without recomputing it: the state a writer keeps is only the tree size
 * and the right edge, the rightmost partial tile of each level and the rightmost partial entry
 * bundle (C2SP tlog-tiles v0.1.0). Size n written in base 256 has digit d_L = the width of the
 * partial tile at level L, and the tree's complete subtrees (its frontier) are exactly the binary
 * runs of each partial tile, so the root and every new tile follow from the edge alone.
 *
 * `appendEntries` is pure: it returns a new edge and the tiles and bundles to write, and leaves
 * the old edge untouched, so a store write that fails can simply be retried from the old one.
 * `loadEdge` reads the edge back from storage in at most one tile per level plus one bundle:
 * start-up costs O(log n) tile reads, never a pass over the entries.
 */
import { CardsError } from '../core/errors.js';
import { decodeEntryBundle, encodeEntryBundle } from './entry-bundle.js';
import { EMPTY_ROOT, HASH_SIZE, leafHash } from './hash.js';
import { completeRoot, splitHashes, type TileReader } from './tile-hashes.js';
import { TILE_WIDTH, type TileRef } from './tile-path.js';
import { decompose, foldHashes } from './tree.js';

export interface LogEdge {
  readonly size: number;
  /** Per tile level, bottom first: the hashes of the rightmost partial tile (0–255). */
  readonly tiles: readonly (readonly Uint8Array[])[];
  /** The entries of the rightmost partial entry bundle (0–255). */
  readonly bundle: readonly Uint8Array[];
}

export interface TileData {
  readonly tile: TileRef;
  readonly data: Uint8Array;
}

export interface AppendResult {
  readonly edge: LogEdge;
  /** Hash tiles and entry bundles that are new or grew, full ones first, each at its width. */
  readonly tiles: TileData[];
  /**
   * The full tiles and bundles among `tiles` that were partial before this append: their
   * partial versions may go (tlog-tiles "Partial Tiles": a log MAY delete a partial tile once
   * its full tile is available). Without that, a log that grows a card at a time keeps every
   * width of every tile it signed: 53 MB for 2,000 cards of 160 bytes.
   */
  readonly superseded: TileRef[];
}

export const EMPTY_EDGE: LogEdge = { size: 0, tiles: [], bundle: [] };

const concat = (hashes: readonly Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(hashes.length * HASH_SIZE);
  hashes.forEach((h, i) => out.set(h, i * HASH_SIZE));
  return out;
};

export function appendEntries(edge: LogEdge, entries: readonly Uint8Array[]): AppendResult {
  const levels = edge.tiles.map((hashes) => [...hashes]);
  let bundle = [...edge.bundle];
  let size = edge.size;
  const out: TileData[] = [];
  for (const entry of entries) {
    bundle.push(entry);
    if (bundle.length === TILE_WIDTH) {
      const tile = { level: 'entries' as const, index: Math.floor(size / TILE_WIDTH), width: 256 };
      out.push({ tile, data: encodeEntryBundle(bundle) });
      bundle = [];
    }
    // Carry like a base-256 counter: a full tile becomes one hash at the level above.
    let hash = leafHash(entry);
    for (let level = 0; ; level++) {
      const row = levels[level] ?? (levels[level] = []);
      row.push(hash);
      if (row.length < TILE_WIDTH) break;
      const index = Math.floor((size + 1) / TILE_WIDTH ** (level + 1)) - 1;
      out.push({ tile: { level, index, width: TILE_WIDTH }, data: concat(row) });
      hash = completeRoot(row);
      levels[level] = [];
    }
    size++;
  }
  if (size !== edge.size) {
    for (let level = 0; level < levels.length; level++) {
      const row = levels[level] as Uint8Array[];
      const before = Math.floor(edge.size / TILE_WIDTH ** level);
      const after = Math.floor(size / TILE_WIDTH ** level);
      if (row.length === 0 || before === after) continue;
      const tile = { level, index: Math.floor(after / TILE_WIDTH), width: row.length };
      out.push({ tile, data: concat(row) });
    }
    if (bundle.length > 0) {
      const tile = { level: 'entries' as const, index: Math.floor(size / TILE_WIDTH) };
      out.push({ tile: { ...tile, width: bundle.length }, data: encodeEntryBundle(bundle) });
    }
  }
  while (levels.length > 0 && levels[levels.length - 1]?.length === 0) levels.pop();
  return { edge: { size, tiles: levels, bundle }, tiles: out, superseded: completed(edge, size) };
}

/** The tiles and bundle that were partial at the edge and are full at `size`. */
function completed(edge: LogEdge, size: number): TileRef[] {
  const out: TileRef[] = [];
  const full = (before: number, after: number, width: number): boolean =>
    width > 0 && Math.floor(after / TILE_WIDTH) > Math.floor(before / TILE_WIDTH);
  edge.tiles.forEach((row, level) => {
    const before = Math.floor(edge.size / TILE_WIDTH ** level);
    const after = Math.floor(size / TILE_WIDTH ** level);
    if (full(before, after, row.length))
      out.push({ level, index: Math.floor(before / TILE_WIDTH), width: TILE_WIDTH });
  });
  if (full(edge.size, size, edge.bundle.length))
    out.push({ level: 'entries', index: Math.floor(edge.size / TILE_WIDTH), width: TILE_WIDTH });
  return out;
}

/** MTH(D[0:size]) from the edge alone: each level's partial tile, top level (leftmost) first. */
export function edgeRoot(edge: LogEdge): Uint8Array {
  if (edge.size === 0) return EMPTY_ROOT;
  const frontier: Uint8Array[] = [];
  for (let level = edge.tiles.length - 1; level >= 0; level--) {
    const row = edge.tiles[level] ?? [];
    for (const { level: height, index } of decompose({ lo: 0, hi: row.length })) {
      const start = index * 2 ** height;
      frontier.push(completeRoot(row.slice(start, start + 2 ** height)));
    }
  }
  return foldHashes(frontier);
}

/** Reads the edge of the tree of `size` leaves back from its tiles. */
export async function loadEdge(size: number, tiles: TileReader): Promise<LogEdge> {
  const rows: Uint8Array[][] = [];
  for (let level = 0; Math.floor(size / TILE_WIDTH ** level) > 0; level++) {
    const hashes = Math.floor(size / TILE_WIDTH ** level);
    const width = hashes % TILE_WIDTH;
    if (width === 0) {
      rows.push([]);
      continue;
    }
    const tile = { level, index: Math.floor(hashes / TILE_WIDTH), width };
    const data = await tiles.readTile(tile);
    if (data?.byteLength !== width * HASH_SIZE) throw missing(tile, data);
    rows.push(splitHashes(data.slice()));
  }
  while (rows.length > 0 && rows[rows.length - 1]?.length === 0) rows.pop();
  let bundle: Uint8Array[] = [];
  if (size % TILE_WIDTH > 0) {
    const tile = { level: 'entries' as const, index: Math.floor(size / TILE_WIDTH) };
    const ref = { ...tile, width: size % TILE_WIDTH };
    const data = await tiles.readTile(ref);
    const entries = data && decodeEntryBundle(data.slice());
    if (entries?.length !== ref.width) throw missing(ref, data);
    bundle = entries;
  }
  return { size, tiles: rows, bundle };
}

function missing(tile: TileRef, data: Uint8Array | undefined): CardsError {
  return new CardsError(
    'STORE_CORRUPT',
    `log tile ${String(tile.level)}/${tile.index} (width ${tile.width}) is ${data ? 'damaged' : 'missing'}; the log cannot be resumed`,
  );
}
