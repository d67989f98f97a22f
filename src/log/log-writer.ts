/**
 * The writer of one log: appends entries on top of the edge it loaded from its TileStore, writes
 * the new tiles (one write per batch), signs a C2SP tlog-checkpoint with the log's Ed25519 key
 * (signed-note type 0x01, key name = origin), persists it, asks its witnesses to cosign it, then
 * publishes it. Proofs and tiles are served only for the published tree.
 *
 * Never two inconsistent checkpoints: on open the persisted checkpoint must verify under the
 * log key and its root must equal the root of the stored tiles at its size, or the writer
 * refuses (STORE_CORRUPT); every later checkpoint extends that edge, append-only. The tree is
 * never recomputed: `loadEdge` reads one tile per level.
 */
import { CardsError } from '../core/errors.js';
import type { PrivateKey } from '../crypto/keys.js';
import { EMPTY_EDGE, appendEntries, edgeRoot, loadEdge, type LogEdge } from './append.js';
import { openCheckpoint, signCheckpoint } from './checkpoint.js';
import { equalHashes, sha256 } from './hash.js';
import { addSignatureLines } from './note.js';
import {
  KEY_TYPE_ED25519,
  ed25519Signer,
  ed25519Verifier,
  formatVerifierKey,
  type NoteSigner,
} from './note-keys.js';
import { consistencyProof, inclusionProof } from './proofs.js';
import { TileHashReader } from './tile-hashes.js';
import { decodeEntryBundle } from './entry-bundle.js';
import { TILE_WIDTH, tilePath, tileWidth, type TileRef } from './tile-path.js';
import type { TileStore } from './tile-store.js';
import { formatTlogProof } from './tlog-proof.js';

/** A witness (or anything) that cosigns the log's checkpoints (tlog-witness, src/witness). */
export interface CheckpointCosigner {
  readonly name: string;
  /**
   * Signature lines (with newlines) cosigning `signed`, a checkpoint of `size` entries;
   * `proof(old)` gives the consistency proof from an older size the witness knows.
   */
  cosign(
    signed: string,
    size: number,
    proof: (oldSize: number) => Promise<Uint8Array[]>,
  ): Promise<string>;
}

export interface LogWriterOptions {
  readonly tiles: TileStore;
  /** The checkpoint origin and the log key's name. */
  readonly origin: string;
  readonly key: PrivateKey;
  readonly cosigners?: readonly CheckpointCosigner[];
  /** Failures that do not stop the log (a witness that does not answer). */
  readonly onWarning?: (message: string) => void;
}

/**
 * The origin of a log nobody named (`--log-origin` unset): stable as long as its key is kept,
 * and unique to it: `cards.local/` and the first 8 bytes of SHA-256 of the public key, in hex.
 */
export function defaultLogOrigin(publicKey: Uint8Array): string {
  return `cards.local/${Buffer.from(sha256(publicKey).subarray(0, 8)).toString('hex')}`;
}

export interface Published {
  readonly size: number;
  /** The signed checkpoint with the cosignatures collected for it. */
  readonly checkpoint: string;
}

export class LogWriter {
  readonly origin: string;
  /** The verifier key in the C2SP/Go vkey form: name+hex8(keyID)+base64(0x01 ‖ key). */
  readonly vkey: string;
  readonly tiles: TileStore;
  readonly reader: TileHashReader;
  readonly #signer: NoteSigner;
  readonly #cosigners: readonly CheckpointCosigner[];
  readonly #warn: (message: string) => void;
  #edge: LogEdge;
  #published: Published;

  private constructor(options: LogWriterOptions, edge: LogEdge, published: Published) {
    this.origin = options.origin;
    this.tiles = options.tiles;
    this.reader = new TileHashReader(options.tiles);
    this.#signer = ed25519Signer(options.origin, options.key);
    this.vkey = formatVerifierKey(options.origin, KEY_TYPE_ED25519, options.key.publicKey.raw);
    this.#cosigners = options.cosigners ?? [];
    this.#warn = options.onWarning ?? (() => undefined);
    this.#edge = edge;
    this.#published = published;
  }

  /** Opens the log in `tiles`, checking its last checkpoint; a new log publishes size 0. */
  static async open(options: LogWriterOptions): Promise<LogWriter> {
    const { tiles, origin, key } = options;
    const signed = await tiles.readCheckpoint();
    if (signed === undefined) {
      const writer = new LogWriter(options, EMPTY_EDGE, { size: 0, checkpoint: '' });
      await writer.#publish(EMPTY_EDGE);
      return writer;
    }
    const refuse = (why: string, hint: string): CardsError =>
      new CardsError('STORE_CORRUPT', `The transparency log in ${tiles.location} ${why}.`, {
        hint,
      });
    let opened;
    try {
      opened = openCheckpoint(signed, [ed25519Verifier(origin, key.publicKey.raw)], origin);
    } catch (err) {
      throw refuse(
        `has a checkpoint that is not this log's (${(err as Error).message})`,
        'start with the --log-origin and log key the log was made with, or move the log folder away to start a new log (clients that trusted the old one will refuse it)',
      );
    }
    const { checkpoint } = opened;
    const edge = await loadEdge(checkpoint.size, tiles);
    if (!equalHashes(edgeRoot(edge), checkpoint.root))
      throw refuse(
        `does not match its signed checkpoint at size ${checkpoint.size}: its tiles were changed`,
        'restore the log folder from a backup; never start a new log over the same origin',
      );
    return new LogWriter(options, edge, { size: checkpoint.size, checkpoint: signed });
  }

  /** The published tree: its size and signed (cosigned) checkpoint. */
  get published(): Published {
    return this.#published;
  }

  /** Entries appended, published or not (a witness may still be answering). */
  get size(): number {
    return this.#edge.size;
  }

  /**
   * The last entries: the rightmost bundle (partial, or the last full one when the size is a
   * multiple of 256), for the start-up check of the entries against their source.
   */
  async lastEntries(): Promise<{ from: number; entries: readonly Uint8Array[] }> {
    const { size, bundle } = this.#edge;
    if (bundle.length > 0 || size === 0) return { from: size - bundle.length, entries: bundle };
    const tile = { level: 'entries' as const, index: size / TILE_WIDTH - 1, width: TILE_WIDTH };
    const data = await this.tiles.readTile(tile);
    const entries = data && decodeEntryBundle(data);
    if (entries?.length !== TILE_WIDTH)
      throw new CardsError(
        'STORE_CORRUPT',
        `log bundle ${tilePath(tile)} in ${this.tiles.location} is missing or damaged`,
      );
    return { from: size - TILE_WIDTH, entries };
  }

  /**
   * Appends a batch: one tiles write, one signed checkpoint persisted, then cosigned and
   * published. A failure leaves the published log as it was; the batch can be retried.
   */
  async append(entries: readonly Uint8Array[]): Promise<void> {
    if (entries.length === 0) return;
    const result = appendEntries(this.#edge, entries);
    await this.tiles.write(result.tiles);
    await this.#publish(result.edge);
  }

  async #publish(edge: LogEdge): Promise<void> {
    const checkpoint = { origin: this.origin, size: edge.size, root: edgeRoot(edge) };
    const signed = signCheckpoint({ ...checkpoint, extensions: [] }, [this.#signer]);
    await this.tiles.writeCheckpoint(signed);
    this.#edge = edge;
    let cosigned = signed;
    const lines = await Promise.all(
      this.#cosigners.map((c) =>
        c
          .cosign(signed, edge.size, (old) =>
            consistencyProof(old, edge.size, this.reader.at(edge.size)),
          )
          .catch((err: Error) => {
            this.#warn(`witness ${c.name}: no cosignature for size ${edge.size}: ${err.message}`);
            return '';
          }),
      ),
    );
    const extra = lines
      .join('')
      .split(/(?<=\n)/)
      .filter(Boolean);
    if (extra.length > 0) {
      cosigned = addSignatureLines(signed, extra);
      await this.tiles.writeCheckpoint(cosigned).catch((err: Error) => {
        this.#warn(`cannot keep the cosignatures: ${err.message}`);
      });
    }
    this.#published = { size: edge.size, checkpoint: cosigned };
  }

  /** The tlog-proof (c2sp.org/tlog-proof@v1) of entry `index` in the published tree. */
  async proof(index: number): Promise<string> {
    const { size, checkpoint } = this.#published;
    if (index >= size) throw new RangeError(`entry ${index} is not in the published tree`);
    const proof = await inclusionProof(index, size, this.reader.at(size));
    return formatTlogProof({ index, proof, checkpoint });
  }

  /** A tile or bundle of the published tree, or undefined when that tree has no such tile. */
  async readTile(tile: TileRef): Promise<Uint8Array | undefined> {
    const { size } = this.#published;
    const level = tile.level === 'entries' ? 0 : tile.level;
    if (tileWidth(level, tile.index, size) < tile.width) return undefined;
    return this.tiles.readTile(tile);
  }
}
