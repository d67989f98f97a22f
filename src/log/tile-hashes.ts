/**
 * Stored hashes read from tiles (C2SP tlog-tiles v0.1.0 "Merkle Tree"): a tile at level L holds
 * the hashes at tree level 8·L, and every complete subtree between two tile levels is the root of
 * a run of one tile's hashes ("the Merkle Tree levels between those expressed by the tile hashes
 * are reconstructed by hashing the leaves"). Tiles are immutable for a given width, so each
 * tile's inner levels are computed once and kept in a small LRU cache: a proof then costs map
 * look-ups, not hashing.
 */
import { LRUCache } from 'lru-cache';
import { CardsError } from '../core/errors.js';
import { HASH_SIZE, nodeHash } from './hash.js';
import type { HashReader } from './proofs.js';
import { TILE_HEIGHT, TILE_WIDTH, tileWidth, type TileRef } from './tile-path.js';
import type { SubtreeId } from './tree.js';

/** Reads a tile or an entry bundle: its bytes, or undefined when the storage has none. */
export interface TileReader {
  readTile(tile: TileRef): Promise<Uint8Array | undefined>;
}

/** The hashes of a tile split into 32-byte views. */
export function splitHashes(data: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0; at < data.byteLength; at += HASH_SIZE)
    out.push(data.subarray(at, at + HASH_SIZE));
  return out;
}

/** MTH of 2^k hashes that form a complete subtree. */
export function completeRoot(hashes: readonly Uint8Array[]): Uint8Array {
  let level = [...hashes];
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i + 1 < level.length; i += 2) {
      next.push(nodeHash(level[i] as Uint8Array, level[i + 1] as Uint8Array));
    }
    level = next;
  }
  const root = level[0];
  if (!root) throw new RangeError('completeRoot: no hashes');
  return root;
}

/**
 * A tile's hashes and every complete node above them inside the tile, level by level, in one
 * buffer (511 hashes, 16 KiB, for a full tile) so a large cache stays compact.
 */
class TileLevels {
  private readonly buffer: Uint8Array;
  /** Start (in hashes) and count of each sub-level. */
  private readonly starts: number[] = [];
  private readonly counts: number[] = [];

  constructor(data: Uint8Array) {
    let total = 0;
    for (let n = data.byteLength / HASH_SIZE; n > 0; n = Math.floor(n / 2)) {
      this.starts.push(total);
      this.counts.push(n);
      total += n;
    }
    this.buffer = new Uint8Array(total * HASH_SIZE);
    this.buffer.set(data);
    for (let level = 1; level < this.counts.length; level++) {
      for (let i = 0; i < (this.counts[level] as number); i++) {
        const left = this.hash(level - 1, 2 * i) as Uint8Array;
        const right = this.hash(level - 1, 2 * i + 1) as Uint8Array;
        this.buffer.set(nodeHash(left, right), ((this.starts[level] as number) + i) * HASH_SIZE);
      }
    }
  }

  hash(level: number, position: number): Uint8Array | undefined {
    const count = this.counts[level];
    if (count === undefined || position >= count) return undefined;
    const at = ((this.starts[level] as number) + position) * HASH_SIZE;
    return this.buffer.subarray(at, at + HASH_SIZE);
  }
}

export interface TileHashReaderOptions {
  /** Tiles whose inner levels are kept (16 KiB each); default 4096 (64 MiB, 10^6 entries warm). */
  readonly cacheTiles?: number;
}

export class TileHashReader {
  /** Tile levels by `tileKey(level, index, width)`; a tile asked for by several proofs is read once. */
  private readonly cache: LRUCache<number, TileLevels, TileRef>;

  constructor(
    private readonly tiles: TileReader,
    options: TileHashReaderOptions = {},
  ) {
    this.cache = new LRUCache({
      max: Math.max(1, options.cacheTiles ?? 4096),
      fetchMethod: (_key, _stale, { context }) => this.levels(context),
    });
  }

  /** A reader of the stored hashes of the tree of `size` leaves. */
  at(size: number): HashReader {
    if (size >= MAX_SIZE)
      throw new RangeError(`a tree of ${size} entries is over this reader's ${MAX_SIZE}`);
    return { readHashes: (ids) => this.read(size, ids) };
  }

  private async read(size: number, ids: readonly SubtreeId[]): Promise<Uint8Array[]> {
    const wanted = ids.map((id) => locate(id, size));
    // Tiles not in memory are read together; a proof over a warm tree reads none.
    const loaded = new Map<number, TileLevels>();
    const missing = new Map<number, TileRef>();
    for (const w of wanted) {
      const hit = loaded.get(w.key) ?? this.cache.get(w.key);
      if (hit) loaded.set(w.key, hit);
      else missing.set(w.key, w.tile);
    }
    if (missing.size > 0)
      await Promise.all(
        [...missing].map(async ([key, tile]) =>
          loaded.set(key, (await this.cache.fetch(key, { context: tile })) as TileLevels),
        ),
      );
    return wanted.map((w) => {
      const hash = loaded.get(w.key)?.hash(w.sublevel, w.position);
      if (!hash)
        throw new RangeError(
          `stored hash at ${w.sublevel}/${w.position} of tile ${w.tile.level}/${w.tile.index}: not in it`,
        );
      return hash;
    });
  }

  private async levels(tile: TileRef): Promise<TileLevels> {
    const data = await this.tiles.readTile(tile);
    if (!data || data.byteLength !== tile.width * HASH_SIZE) {
      throw new CardsError(
        'STORE_CORRUPT',
        `log tile ${String(tile.level)}/${tile.index} (width ${tile.width}): ${data ? `${data.byteLength} bytes, expected ${tile.width * HASH_SIZE}` : 'missing'}`,
      );
    }
    return new TileLevels(data);
  }
}

/**
 * A tile's cache key: level, index and width in one number (a string built per hash cost a
 * proof more than its look-ups), exact while index < 2^41, so for trees under 2^49 entries.
 */
const tileKey = (level: number, index: number, width: number): number =>
  (index * 8 + level) * 512 + width;
const MAX_SIZE = 2 ** 49;

/** Which tile (at the width the tree of `size` has) holds stored hash `id`, and where. */
function locate(id: SubtreeId, size: number) {
  const level = Math.floor(id.level / TILE_HEIGHT);
  const sublevel = id.level - level * TILE_HEIGHT;
  const perTile = TILE_WIDTH / 2 ** sublevel; // nodes of this sub-level in one full tile
  const index = Math.floor(id.index / perTile);
  const position = id.index - index * perTile;
  const width = tileWidth(level, index, size);
  if (Math.floor(width / 2 ** sublevel) <= position) {
    throw new RangeError(`stored hash ${id.level}/${id.index}: not in a tree of size ${size}`);
  }
  return { key: tileKey(level, index, width), tile: { level, index, width }, sublevel, position };
}
