/**
 * Where a log keeps its tiles, entry bundles and last signed checkpoint: the one interface the
 * log writer (log-writer.ts) needs from storage. Engines: memory (here), plain files at their
 * tlog-tiles paths beside a JSON store (file-tiles.ts); a database store can implement it with
 * a table keyed by tile path and one row for the checkpoint.
 *
 * Rules an implementation keeps: `write` is durable when it resolves and a reader never sees a
 * torn tile; `writeCheckpoint` replaces the checkpoint atomically and durably, so the last
 * checkpoint the log signed survives any crash (the log refuses to sign one inconsistent with
 * it, tlog-checkpoint and tlog-witness both rely on that).
 */
import type { TileData } from './append.js';
import { MemoryTiles } from './memory-tiles.js';
import type { TileReader } from './tile-hashes.js';
import type { TileRef } from './tile-path.js';

export interface TileStore extends TileReader {
  /** For messages ("/data/cards.log", "memory"). */
  readonly location: string;
  /** Writes tiles and bundles durably (a full one never changes; a partial one only grows). */
  write(tiles: readonly TileData[]): Promise<void>;
  /** The last signed checkpoint, verbatim, or undefined for a new log. */
  readCheckpoint(): Promise<string | undefined>;
  /** Replaces the checkpoint atomically and durably. */
  writeCheckpoint(signed: string): Promise<void>;
}

/** A TileStore in memory: for the memory store, tests and benches. */
export class MemoryTileStore implements TileStore {
  readonly location = 'memory';
  readonly tiles = new MemoryTiles();
  #checkpoint: string | undefined;

  async write(tiles: readonly TileData[]): Promise<void> {
    this.tiles.write(tiles);
  }

  async readTile(tile: TileRef): Promise<Uint8Array | undefined> {
    return this.tiles.readSync(tile);
  }

  async readCheckpoint(): Promise<string | undefined> {
    return this.#checkpoint;
  }

  async writeCheckpoint(signed: string): Promise<void> {
    this.#checkpoint = signed;
  }
}
