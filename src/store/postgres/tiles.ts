/**
 * The transparency log's TileStore on PostgreSQL: tiles and entry bundles by tlog-tiles path
 * (cards_log_tiles) and the one state row holding the last signed checkpoint and the epoch
 * (cards_log_state; SQL in sql.ts), and apart from them the record of the last checkpoint the
 * log key signed (cards_log_signed), written in the same transaction. Shared by every server on the database: `update` is one
 * transaction holding the state row's lock, so whichever server holds it extends the one tree,
 * its tile and checkpoint writes commit together or none do, and the others take it up.
 */
import type { TileData } from '../../log/append.js';
import { partialPaths, readTileAt } from '../../log/memory-tiles.js';
import type { TileStore, TileTransaction } from '../../log/tile-store.js';
import { tilePath, type TileRef } from '../../log/tile-path.js';
import type { Database } from './database.js';
import { unavailable } from './errors.js';
import * as SQL from './sql.js';

interface StateRow {
  readonly checkpoint: string | null;
  readonly epoch: number | string;
}

const tileOf = (row: { data: Buffer } | undefined): Uint8Array | undefined =>
  row && new Uint8Array(row.data);

export class PostgresTiles implements TileStore {
  readonly shared = true;

  constructor(readonly db: Database) {}

  get location(): string {
    return `${this.db.location} (cards_log_tiles)`;
  }

  get lastSignedLocation(): string {
    return `${this.db.location} (cards_log_signed)`;
  }

  readTile(tile: TileRef, epoch?: number): Promise<Uint8Array | undefined> {
    const read = async (path: string): Promise<Uint8Array | undefined> =>
      tileOf(
        (epoch === undefined
          ? await this.db.rows<{ data: Buffer }>(SQL.LOG_TILE, [path])
          : await this.db.rows<{ data: Buffer }>(SQL.LOG_TILE_OF_EPOCH, [path, epoch]))[0],
      );
    return readTileAt(read, tile);
  }

  async readCheckpoint(): Promise<string | undefined> {
    const [row] = await this.db.rows<StateRow>(SQL.LOG_STATE);
    return row?.checkpoint ?? undefined;
  }

  /** One transaction holding the state row's lock; serialization failures run `fn` again. */
  update<T>(fn: (tx: TileTransaction) => Promise<T>): Promise<T> {
    return this.db.transaction(async (client) => {
      const state = (await client.query<StateRow>(SQL.LOG_STATE_LOCKED)).rows[0];
      return fn({
        checkpoint: state?.checkpoint ?? undefined,
        epoch: Number(state?.epoch ?? 0),
        readTile: (tile) =>
          readTileAt(
            async (path) => tileOf((await client.query(SQL.LOG_TILE, [path])).rows[0]),
            tile,
          ),
        write: async (tiles: readonly TileData[]) => {
          if (tiles.length === 0) return;
          const paths = tiles.map(({ tile }) => tilePath(tile));
          const data = tiles.map(({ data: d }) =>
            Buffer.from(d.buffer, d.byteOffset, d.byteLength),
          );
          await client.query(SQL.LOG_PUT_TILES, [paths, data]);
        },
        dropPartials: async (full) => {
          const paths = full.flatMap(partialPaths);
          if (paths.length > 0) await client.query(SQL.LOG_DELETE_TILES, [paths]);
        },
        writeCheckpoint: async (signed, epoch, record) => {
          await client.query(SQL.LOG_SET_CHECKPOINT, [signed, epoch, record]);
        },
        lastSigned: async () =>
          (await client.query<{ checkpoint: string }>(SQL.LOG_LAST_SIGNED)).rows[0]?.checkpoint,
        clear: async () => {
          await client.query(SQL.LOG_CLEAR_TILES);
        },
      });
    });
  }

  /** Replaces checkpoint `current` with `next` unless another writer moved it. */
  async replaceCheckpoint(current: string, next: string): Promise<boolean> {
    try {
      return (await this.db.query(SQL.LOG_REPLACE_CHECKPOINT, [current, next])).rowCount === 1;
    } catch (err) {
      throw unavailable(err);
    }
  }
}
