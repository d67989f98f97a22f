/**
 * The JSON engine's log tiles: tiles and entry bundles as plain files under the folder beside the
 * store (paths.ts `logDir`), at their tlog-tiles paths (`<dir>/tile/0/x001/234.p/5`), so any
 * static file server can publish the log (`directory`). Each file is written whole (temporary file, fsync,
 * rename, fsync of its folder): a reader never sees a torn tile. Full tiles and bundles are
 * immutable; a partial one is written once at each width, its `.p/` folder goes once the full
 * tile is written, and a partial that is gone is served from the full tile (tlog-tiles
 * "Partial Tiles"). The last signed checkpoint is `<dir>/checkpoint` (tlog-tiles
 * "Checkpoints"), replaced atomically. The record of the last checkpoint the log key signed is
 * a file outside that folder, beside the key (paths.ts `logSigned`), replaced as durably right
 * after each new checkpoint: deleting or restoring the folder does not touch it.
 */
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { FOLDER_MODE, fsyncDir, replaceFile } from '../../io/fs-durable.js';
import type { TileData } from '../../log/append.js';
import { readTileAt } from '../../log/memory-tiles.js';
import type { TileStore, TileTransaction } from '../../log/tile-store.js';
import { tilePath, type TileRef } from '../../log/tile-path.js';

/** Tiles written at once by `write`. */
const PARALLEL = 16;

export class FileTiles implements TileStore {
  /** One server per store file (its lock): no other writer. */
  readonly shared = false;
  /** Folders this process made or found (a tile's folder is made once, not per tile). */
  readonly #made = new Set<string>();
  /** The checkpoint as last read or written here: as the only writer, what the file holds. */
  #stored: { text: string | undefined } | undefined;

  /**
   * @param directory the log's folder (tiles, bundles, checkpoint)
   * @param lastSignedPath the file keeping the last checkpoint signed, outside `directory`
   */
  constructor(
    readonly directory: string,
    readonly lastSignedPath: string,
  ) {}

  get lastSignedLocation(): string {
    return this.lastSignedPath;
  }

  /** The checkpoint file's text, read once (again only after a write that failed). */
  async #checkpoint(): Promise<string | undefined> {
    this.#stored ??= { text: await this.readCheckpoint() };
    return this.#stored.text;
  }

  async update<T>(fn: (tx: TileTransaction) => Promise<T>): Promise<T> {
    return fn({
      checkpoint: await this.#checkpoint(),
      epoch: undefined,
      readTile: (tile) => this.readTile(tile),
      write: (tiles) => this.write(tiles),
      dropPartials: (full) => this.#dropPartials(full),
      writeCheckpoint: async (signed, _epoch, record) => {
        await this.writeCheckpoint(signed);
        await replaceFile(this.lastSignedPath, [record], 0o644);
      },
      lastSigned: async () => {
        const bytes = await readOrUndefined(this.lastSignedPath);
        return bytes && Buffer.from(bytes).toString('utf8');
      },
      clear: () => this.#clear(),
    });
  }

  async replaceCheckpoint(current: string, next: string): Promise<boolean> {
    if ((await this.#checkpoint()) !== current) return false;
    await this.writeCheckpoint(next);
    return true;
  }

  /**
   * Removes the tiles (a new log begins): the folder is renamed away first, so a crash leaves
   * either all of the old tiles or none; the checkpoint file stays until the writer replaces it.
   */
  async #clear(): Promise<void> {
    const tiles = join(this.directory, 'tile');
    const gone = `${tiles}.${process.pid}.old`;
    this.#made.clear();
    await rename(tiles, gone).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
    await rm(gone, { recursive: true, force: true });
  }

  get location(): string {
    return this.directory;
  }

  async readCheckpoint(): Promise<string | undefined> {
    const bytes = await readOrUndefined(join(this.directory, 'checkpoint'));
    return bytes && Buffer.from(bytes).toString('utf8');
  }

  async writeCheckpoint(signed: string): Promise<void> {
    await this.#mkdir(this.directory);
    this.#stored = undefined;
    await replaceFile(join(this.directory, 'checkpoint'), [signed], 0o644);
    this.#stored = { text: signed };
  }

  async #mkdir(dir: string): Promise<void> {
    if (this.#made.has(dir)) return;
    await mkdir(dir, { recursive: true, mode: FOLDER_MODE });
    this.#made.add(dir);
  }

  pathOf(tile: TileRef): string {
    return join(this.directory, tilePath(tile));
  }

  /**
   * Writes every tile durably; folders are made as needed. Up to PARALLEL at once: each is
   * still written whole and synced before its rename, but the syncs overlap and the file system
   * commits them together, so a start that integrates a backlog of thousands of entries does not
   * wait for one disk flush per tile in turn.
   */
  async write(tiles: readonly TileData[]): Promise<void> {
    const dirs = new Set<string>();
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let at = next++; at < tiles.length; at = next++) {
        const { tile, data } = tiles[at] as TileData;
        const path = this.pathOf(tile);
        await this.#mkdir(dirname(path));
        await this.#writeTile(path, data);
        dirs.add(dirname(path));
      }
    };
    await settleAll(Array.from({ length: Math.min(PARALLEL, tiles.length) }, worker));
    await settleAll([...dirs].map((dir) => fsyncDir(dir)));
  }

  async #writeTile(path: string, data: Uint8Array): Promise<void> {
    const tmp = `${path}.${process.pid}.tmp`;
    try {
      const handle = await open(tmp, 'w', 0o644);
      try {
        await handle.writeFile(data);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(tmp, path);
    } catch (err) {
      this.#made.clear();
      await rm(tmp, { force: true });
      throw err;
    }
  }

  /** Removes the `<full>.p/` folder of each full tile (no sync: see TileTransaction). */
  async #dropPartials(full: readonly TileRef[]): Promise<void> {
    for (const tile of full) await rm(`${this.pathOf(tile)}.p`, { recursive: true, force: true });
  }

  readTile(tile: TileRef): Promise<Uint8Array | undefined> {
    return readTileAt((path) => readOrUndefined(join(this.directory, path)), tile);
  }
}

/** Waits for every one of `work`, then throws the first failure (none is left running). */
async function settleAll(work: readonly Promise<void>[]): Promise<void> {
  const failed = (await Promise.allSettled(work)).find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
}

async function readOrUndefined(path: string): Promise<Uint8Array | undefined> {
  try {
    return new Uint8Array(await readFile(path));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
