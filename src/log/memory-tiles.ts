/**
 * Tiles and entry bundles kept in memory, by their tlog-tiles path: for tests, benches and the
 * memory store. A partial tile that was dropped once its full tile exists is served from the
 * full one (tlog-tiles "Partial Tiles": logs MAY delete superseded partial tiles).
 */
import type { TileData } from './append.js';
import { decodeEntryBundle, encodeEntryBundle } from './entry-bundle.js';
import { HASH_SIZE } from './hash.js';
import type { TileReader } from './tile-hashes.js';
import { TILE_WIDTH, tilePath, type TileRef } from './tile-path.js';

export class MemoryTiles implements TileReader {
  readonly files = new Map<string, Uint8Array>();

  write(tiles: readonly TileData[]): void {
    for (const { tile, data } of tiles) this.files.set(tilePath(tile), data);
  }

  dropPartials(full: readonly TileRef[]): void {
    for (const path of full.flatMap(partialPaths)) this.files.delete(path);
  }

  async readTile(tile: TileRef): Promise<Uint8Array | undefined> {
    return this.readSync(tile);
  }

  readSync(tile: TileRef): Uint8Array | undefined {
    const exact = this.files.get(tilePath(tile));
    if (exact || tile.width === TILE_WIDTH) return exact;
    const full = this.files.get(tilePath({ ...tile, width: TILE_WIDTH }));
    if (!full) return undefined;
    return prefixOf(tile, full);
  }
}

/** The paths every partial version of a full tile could have (`<full>.p/1` to `.p/255`). */
export const partialPaths = (full: TileRef): string[] =>
  Array.from({ length: TILE_WIDTH - 1 }, (_, i) => tilePath({ ...full, width: i + 1 }));

/** The first `tile.width` hashes or entries of a full tile or bundle. */
function prefixOf(tile: TileRef, full: Uint8Array): Uint8Array | undefined {
  if (tile.level !== 'entries') return full.subarray(0, tile.width * HASH_SIZE);
  const entries = decodeEntryBundle(full);
  return entries && encodeEntryBundle(entries.slice(0, tile.width));
}

/**
 * A tile read from storage by its tlog-tiles path: the exact file, or for a partial tile whose
 * file is gone, the prefix of its full tile (the one rule every engine follows).
 */
export async function readTileAt(
  read: (path: string) => Promise<Uint8Array | undefined>,
  tile: TileRef,
): Promise<Uint8Array | undefined> {
  const exact = await read(tilePath(tile));
  if (exact || tile.width === TILE_WIDTH) return exact;
  const full = await read(tilePath({ ...tile, width: TILE_WIDTH }));
  return full && prefixOf(tile, full);
}
