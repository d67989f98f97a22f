/**
 * Reading a served log's entries from where a reader last stopped, checking them against the
 * signed tree as it goes: the reader keeps its own edge of the tree (src/log/append.ts), appends
 * every entry it reads and requires the resulting root to be the checkpoint's. So every entry
 * reported is in the signed tree, and a log that shrank or changed its past is caught
 * (LOG_INCONSISTENT, exit 8) without trusting the server for anything. `cards monitor` and
 * `cards log audit` read through it.
 */
import { CardsError } from '../core/errors.js';
import { decodeBase64, encodeBase64 } from '../core/encoding.js';
import { appendEntries, edgeRoot, EMPTY_EDGE, type LogEdge } from '../log/append.js';
import { openCheckpoint, parseCheckpoint, type Checkpoint } from '../log/checkpoint.js';
import { decodeEntryBundle } from '../log/entry-bundle.js';
import { equalHashes, HASH_SIZE } from '../log/hash.js';
import { prefixOfOrigin } from '../log/log-epochs.js';
import { parseNote } from '../log/note.js';
import type { NoteVerifier } from '../log/note-keys.js';
import { TILE_WIDTH, tilePath, tileWidth, type TileRef } from '../log/tile-path.js';
import type { TileData } from '../log/append.js';
import { DEFAULT_CONCURRENCY } from './flags.js';
import type { RemoteLog } from './log-remote.js';

/** An edge as JSON (base64 hashes and entries), for a reader's state file. */
export interface SavedEdge {
  size: number;
  tiles: string[][];
  bundle: string[];
}

export const saveEdge = (edge: LogEdge): SavedEdge => ({
  size: edge.size,
  tiles: edge.tiles.map((row) => row.map(encodeBase64)),
  bundle: edge.bundle.map(encodeBase64),
});

/**
 * Whether `saved` is an edge as saveEdge writes it: a size (a safe integer, not negative), per
 * tile level as many 32-byte hashes as the size's base-256 digit at that level and no digit
 * above the last level, and as many entries in the bundle as its last digit (C2SP tlog-tiles:
 * the partial tile of each level, the partial bundle; src/log/append.ts). A state file edited or
 * damaged by hand is refused before it is read from, never taken for a log that changed.
 */
export function isSavedEdge(saved: unknown): saved is SavedEdge {
  if (typeof saved !== 'object' || saved === null) return false;
  const { size, tiles, bundle } = saved as Partial<Record<keyof SavedEdge, unknown>>;
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) return false;
  if (!Array.isArray(tiles) || !Array.isArray(bundle)) return false;
  const digit = (level: number): number => Math.floor(size / TILE_WIDTH ** level) % TILE_WIDTH;
  const isHash = (h: unknown): boolean =>
    typeof h === 'string' && decodeBase64(h)?.byteLength === HASH_SIZE;
  return (
    Math.floor(size / TILE_WIDTH ** tiles.length) === 0 &&
    tiles.every(
      (row, level) => Array.isArray(row) && row.length === digit(level) && row.every(isHash),
    ) &&
    bundle.length === size % TILE_WIDTH &&
    bundle.every((entry) => typeof entry === 'string' && decodeBase64(entry) !== undefined)
  );
}

export function loadSavedEdge(saved: SavedEdge | undefined): LogEdge {
  if (!saved) return EMPTY_EDGE;
  const bytes = (b: string): Uint8Array => decodeBase64(b) ?? new Uint8Array();
  return {
    size: saved.size,
    tiles: saved.tiles.map((r) => r.map(bytes)),
    bundle: saved.bundle.map(bytes),
  };
}

/** The log's checkpoint, verified under `logKey` when one is given. */
export async function fetchCheckpoint(
  remote: RemoteLog,
  logKey: NoteVerifier | undefined,
): Promise<{ checkpoint: Checkpoint; signed: string }> {
  const signed = await remote.checkpoint();
  const checkpoint = logKey
    ? openCheckpoint(signed, [logKey], logKey.name).checkpoint
    : parseCheckpoint(parseNote(signed).text);
  return { checkpoint, signed };
}

interface FollowOptions {
  readonly remote: RemoteLog;
  readonly from: LogEdge;
  readonly checkpoint: Checkpoint;
  /** Told of each entry, in order, with its index. */
  readonly onEntry: (index: number, entry: Uint8Array) => void;
  /** Told of the hash tiles the reader's appends produce (the audit compares them). */
  readonly onTiles?: (tiles: readonly TileData[]) => Promise<void>;
  /** Bundles fetched at once (default: the requests in flight of `--concurrency`). */
  readonly concurrency?: number;
}

/** Reads entries [from.size, checkpoint.size) and returns the edge at the checkpoint's size. */
export async function followLog(options: FollowOptions): Promise<LogEdge> {
  const { remote, checkpoint } = options;
  let edge = options.from;
  if (checkpoint.size < edge.size)
    throw new CardsError(
      'LOG_INCONSISTENT',
      `The log forked or rewound: it now signs ${checkpoint.size} entries, and ${edge.size} were read from it before.`,
    );
  const first = Math.floor(edge.size / TILE_WIDTH);
  const refs: TileRef[] = [];
  for (let index = first; index * TILE_WIDTH < checkpoint.size; index++)
    refs.push({ level: 'entries', index, width: tileWidth(0, index, checkpoint.size) });
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const tiles = remote.tilesOf(checkpoint.origin);
  for (let at = 0; at < refs.length; at += concurrency) {
    const batch = refs.slice(at, at + concurrency);
    const bundles = await Promise.all(batch.map((ref) => tiles.readTile(ref)));
    for (const [k, ref] of batch.entries()) {
      const data = bundles[k];
      const entries = data && decodeEntryBundle(data);
      const where = `${remote.url}/log/${prefixOfOrigin(checkpoint.origin)}${tilePath(ref)}`;
      if (data === undefined) throw new CardsError('LOG_TILE_NOT_FOUND', `${where}: missing.`);
      // A bundle served for a size the log signed that is not that many entries: the log no
      // longer serves the tree it signed (C2SP tlog-tiles: a bundle holds exactly its width).
      if (entries?.length !== ref.width)
        throw new CardsError(
          'LOG_INCONSISTENT',
          `${where}: not a bundle of ${ref.width} entries, so not the tree it signed.`,
        );
      const skip = Math.max(0, edge.size - ref.index * TILE_WIDTH);
      const fresh = entries.slice(skip);
      fresh.forEach((entry, i) => options.onEntry(edge.size + i, entry));
      const result = appendEntries(edge, fresh);
      await options.onTiles?.(result.tiles.filter((t) => t.tile.level !== 'entries'));
      edge = result.edge;
    }
  }
  if (!equalHashes(edgeRoot(edge), checkpoint.root))
    throw new CardsError(
      'LOG_INCONSISTENT',
      `The log's entries (${edge.size}) do not hash to the root its checkpoint signs: the log changed entries it had published, or serves entries that are not in its tree.`,
    );
  return edge;
}
