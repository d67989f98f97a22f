/**
 * Where a log keeps its tiles, entry bundles and last signed checkpoint, and apart from them the
 * log key's record of the last checkpoint it signed: the one interface the log writer
 * (log-writer.ts) needs from storage. Each engine holds one (src/store/engine.ts):
 * memory (here), plain files at their tlog-tiles paths beside a JSON store
 * (src/store/json/file-tiles.ts), tables shared by several servers (src/store/postgres/tiles.ts).
 *
 * Rules an implementation keeps: every change happens in `update`, which runs one writer at a
 * time (a shared engine holds a lock for the transaction and commits its writes together); a
 * tile write is durable when it resolves and a reader never sees a torn tile; the checkpoint is
 * replaced atomically and durably, so the last checkpoint the log signed survives any crash
 * (the log refuses to sign one inconsistent with it: tlog-checkpoint and tlog-witness rely on
 * that). The record of the last signed checkpoint is kept where losing or restoring the log does
 * not touch it (beside the log key), written with each new checkpoint (before it is published)
 * as durably: a log found missing or behind it is refused rather than signed over (a fork).
 */
import type { TileData } from './append.js';
import { MemoryTiles } from './memory-tiles.js';
import type { TileReader } from './tile-hashes.js';
import type { TileRef } from './tile-path.js';

/** What a writer sees and does inside `update`. */
export interface TileTransaction extends TileReader {
  /** The stored signed checkpoint (cosignatures included) when the update began. */
  readonly checkpoint: string | undefined;
  /**
   * New logs begun since the first (a reset of the registry starts one, never rewinds the old):
   * a shared engine counts them itself; otherwise undefined, and the checkpoint's origin says.
   */
  readonly epoch: number | undefined;
  /** Writes tiles and bundles (a full one never changes; a partial one only grows). */
  write(tiles: readonly TileData[]): Promise<void>;
  /**
   * Removes the partial versions of full tiles already written (AppendResult.superseded): a
   * read of one is then answered from its full tile (readTileAt), before and after the next
   * checkpoint alike, so this need not be durable.
   */
  dropPartials(full: readonly TileRef[]): Promise<void>;
  /**
   * Replaces the checkpoint, signed by the log key for a log begun after `epoch` resets, and the
   * record of the last checkpoints signed (`lastSigned`) with `record`, which holds it: a shared
   * engine commits both with the transaction; another writes the checkpoint first (a crash
   * between leaves a record behind the log, never ahead of it).
   */
  writeCheckpoint(signed: string, epoch: number, record: string): Promise<void>;
  /**
   * The record: the last checkpoint signed here of each log (one per origin and key, written one
   * after the other; log-epochs.ts), or undefined.
   */
  lastSigned(): Promise<string | undefined>;
  /** Removes every tile and bundle (a new log begins; its checkpoint is written next). */
  clear(): Promise<void>;
}

export interface TileStore extends TileReader {
  /** For messages ("/data/cards.json.log", "memory", the database). */
  readonly location: string;
  /** Several servers write it (a database): a writer reads it again before each change. */
  readonly shared: boolean;
  /**
   * The folder holding the log's files at their tlog-tiles paths (`checkpoint`,
   * `tile/<L>/<N>[.p/<W>]`, `tile/entries/…`), servable as static files; unset when the tiles
   * are not files.
   */
  readonly directory?: string;
  /** Where the record of the last checkpoint signed is kept, for messages. */
  readonly lastSignedLocation: string;
  /**
   * A tile or bundle of the stored log. Given `epoch`, a shared store answers only while the
   * stored log is the one begun after `epoch` resets: another server may have begun a new log
   * since this one looked, whose tiles take the same paths (and never answer for the old log).
   */
  readTile(tile: TileRef, epoch?: number): Promise<Uint8Array | undefined>;
  /** The last signed checkpoint, verbatim, or undefined for a new log. */
  readCheckpoint(): Promise<string | undefined>;
  /** Runs `fn` as the only writer; a shared engine commits its writes together, or none. */
  update<T>(fn: (tx: TileTransaction) => Promise<T>): Promise<T>;
  /**
   * Replaces the checkpoint `current` with `next` (the same tree with cosignatures added),
   * unless another writer replaced it meanwhile; resolves to whether it did.
   */
  replaceCheckpoint(current: string, next: string): Promise<boolean>;
}

/** A TileStore in memory: for the memory store, tests and benches. */
export class MemoryTileStore implements TileStore {
  readonly location = 'memory';
  readonly lastSignedLocation = 'memory';
  readonly shared = false;
  tiles = new MemoryTiles();
  #checkpoint: string | undefined;
  #lastSigned: string | undefined;

  async readTile(tile: TileRef): Promise<Uint8Array | undefined> {
    return this.tiles.readSync(tile);
  }

  async readCheckpoint(): Promise<string | undefined> {
    return this.#checkpoint;
  }

  async update<T>(fn: (tx: TileTransaction) => Promise<T>): Promise<T> {
    return fn({
      checkpoint: this.#checkpoint,
      epoch: undefined,
      readTile: (tile) => this.readTile(tile),
      write: async (tiles) => this.tiles.write(tiles),
      dropPartials: async (full) => this.tiles.dropPartials(full),
      writeCheckpoint: async (signed, _epoch, record) => {
        this.#checkpoint = signed;
        this.#lastSigned = record;
      },
      lastSigned: async () => this.#lastSigned,
      clear: async () => {
        this.tiles = new MemoryTiles();
      },
    });
  }

  async replaceCheckpoint(current: string, next: string): Promise<boolean> {
    if (this.#checkpoint !== current) return false;
    this.#checkpoint = next;
    return true;
  }
}
