/**
 * The transparency log's TileStore on the PostgreSQL store (issue 16): tiles by tlog-tiles path
 * and the one state row, in the store's tables (its SQL stays in src/store/postgres-sql.ts).
 * Shared by every server on the database: `update` is one transaction holding the state row's
 * lock, so whichever server holds it extends the one tree, and the others take it up.
 */
import type { TileData } from '../../log/append.js';
import { partialPaths, readTileAt } from '../../log/memory-tiles.js';
import type { TileStore, TileTransaction } from '../../log/tile-store.js';
import { tilePath, type TileRef } from '../../log/tile-path.js';
import type { PostgresStore } from './postgres-store.js';

const rows = (tiles: readonly TileData[]) =>
  tiles.map(({ tile, data }) => ({ path: tilePath(tile), data }));

export class PostgresTiles implements TileStore {
  readonly shared = true;

  constructor(readonly store: PostgresStore) {}

  get location(): string {
    return `${this.store.location} (cards_log_tiles)`;
  }

  readTile(tile: TileRef): Promise<Uint8Array | undefined> {
    return readTileAt((path) => this.store.logTile(path), tile);
  }

  async readCheckpoint(): Promise<string | undefined> {
    return (await this.store.logState()).checkpoint;
  }

  update<T>(fn: (tx: TileTransaction) => Promise<T>): Promise<T> {
    return this.store.logUpdate((tx) =>
      fn({
        checkpoint: tx.checkpoint,
        epoch: tx.epoch,
        readTile: (tile) => readTileAt((path) => tx.tile(path), tile),
        write: (tiles) => tx.putTiles(rows(tiles)),
        dropPartials: (full) => tx.deleteTiles(full.flatMap(partialPaths)),
        writeCheckpoint: (signed) => tx.setCheckpoint(signed),
        clear: () => tx.clearTiles(),
      }),
    );
  }

  replaceCheckpoint(current: string, next: string): Promise<boolean> {
    return this.store.logReplaceCheckpoint(current, next);
  }
}
