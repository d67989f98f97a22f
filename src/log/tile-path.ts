/**
 * C2SP tlog-tiles v0.1.0 resource paths: `tile/<L>/<N>[.p/<W>]` for Merkle tree tiles and
 * `tile/entries/<N>[.p/<W>]` for entry bundles ("Merkle Tree" and "Log entries" sections).
 * N is written in zero-padded 3-digit elements, all but the last prefixed with `x`
 * (1234067 → `x001/x234/067`); L is 0–63 and W is 1–255, both without leading zeroes.
 * Parsing is strict: a path that formats differently from what it parses to is refused, so one
 * resource has exactly one name.
 */

export const TILE_HEIGHT = 8;
export const TILE_WIDTH = 256;
const MAX_TILE_LEVEL = 63;

/** A Merkle tree tile (`level` ≥ 0) or an entry bundle (`level` 'entries'). */
export interface TileRef {
  readonly level: number | 'entries';
  readonly index: number;
  /** 1–256; 256 is a full tile (no `.p/` suffix). */
  readonly width: number;
}

function formatTileIndex(index: number): string {
  if (!Number.isSafeInteger(index) || index < 0) throw new RangeError(`tile index ${index}`);
  const groups: string[] = [];
  let n = index;
  do {
    groups.unshift(String(n % 1000).padStart(3, '0'));
    n = Math.floor(n / 1000);
  } while (n > 0);
  return groups.map((g, i) => (i < groups.length - 1 ? `x${g}` : g)).join('/');
}

export function tilePath(tile: TileRef): string {
  if (!(Number.isInteger(tile.width) && tile.width >= 1 && tile.width <= TILE_WIDTH)) {
    throw new RangeError(`tile width ${tile.width}`);
  }
  const level = tile.level === 'entries' ? 'entries' : String(tile.level);
  const partial = tile.width < TILE_WIDTH ? `.p/${tile.width}` : '';
  return `tile/${level}/${formatTileIndex(tile.index)}${partial}`;
}

const PATH =
  /^tile\/(entries|0|[1-9][0-9]?)\/((?:x[0-9]{3}\/)*[0-9]{3})(?:\.p\/([1-9][0-9]{0,2}))?$/;

/** The tile a path names, or undefined for anything that is not a canonical tile path. */
export function parseTilePath(path: string): TileRef | undefined {
  const match = PATH.exec(path);
  if (!match) return undefined;
  const level: number | 'entries' = match[1] === 'entries' ? 'entries' : Number(match[1]);
  if (level !== 'entries' && level > MAX_TILE_LEVEL) return undefined;
  const index = Number((match[2] ?? '').replace(/x|\//g, ''));
  const width = match[3] === undefined ? TILE_WIDTH : Number(match[3]);
  if (!Number.isSafeInteger(index) || (match[3] !== undefined && width >= TILE_WIDTH)) {
    return undefined;
  }
  const tile = { level, index, width };
  return tilePath(tile) === path ? tile : undefined;
}

/**
 * The width of tile `index` at tile level `level` in a tree of `size` leaves: 256 when full,
 * 1–255 when partial, 0 when the tree has no such tile ("Partial Tiles": the partial tile at
 * level l has floor(size / 256^l) mod 256 entries).
 */
export function tileWidth(level: number, index: number, size: number): number {
  const hashes = Math.floor(size / TILE_WIDTH ** level); // hashes at tree level 8·level
  const before = index * TILE_WIDTH;
  if (hashes <= before) return 0;
  return Math.min(TILE_WIDTH, hashes - before);
}

/** Every tile (hash tiles, then entry bundles) a tree of `size` leaves is served as. */
export function tilesForSize(size: number): TileRef[] {
  const out: TileRef[] = [];
  for (let level = 0; Math.floor(size / TILE_WIDTH ** level) > 0; level++) {
    const hashes = Math.floor(size / TILE_WIDTH ** level);
    for (let index = 0; index * TILE_WIDTH < hashes; index++) {
      out.push({ level, index, width: tileWidth(level, index, size) });
    }
  }
  for (let index = 0; index * TILE_WIDTH < size; index++) {
    out.push({ level: 'entries', index, width: tileWidth(0, index, size) });
  }
  return out;
}
