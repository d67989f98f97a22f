/**
 * The writer of one log: appends entries on top of the edge it loaded from its TileStore, writes
 * the new tiles (one write per batch), signs a C2SP tlog-checkpoint with the log's Ed25519 key
 * (signed-note type 0x01, key name = origin), persists it and publishes it; its witnesses'
 * cosignatures are added as they come (cosigning.ts), the one it opened with asked for at once.
 * Proofs and tiles are served only for the published tree.
 *
 * Never two inconsistent checkpoints: on open the persisted checkpoint must verify under the
 * log key and its root must equal the root of the stored tiles at its size, or the writer
 * refuses (STORE_CORRUPT); the log found must be at or after the last checkpoint the key signed
 * (kept apart from the log, log-epochs.ts), or the writer refuses (LOG_ROLLED_BACK) unless told
 * to begin a new log (`newLog`); every later checkpoint extends that edge, append-only. The
 * tree is never recomputed: `loadEdge` reads one tile per level.
 */
import { encodeHex } from '../core/encoding.js';
import { CardsError } from '../core/errors.js';
import type { PrivateKey } from '../crypto/keys.js';
import { EMPTY_EDGE, appendEntries, edgeRoot, loadEdge, type LogEdge } from './append.js';
import { openCheckpoint, parseCheckpoint, signCheckpoint } from './checkpoint.js';
import { equalHashes, sha256 } from './hash.js';
import { Cosigning, type CheckpointCosigner, type Submission } from './cosigning.js';
import { addSignatureLines, parseNote } from './note.js';
import {
  epochOf,
  epochOrigin,
  isAtOrAfter,
  keptRecord,
  logBehind,
  signedPoint,
  type TreePoint,
} from './log-epochs.js';
import {
  KEY_TYPE_ED25519,
  ed25519Signer,
  ed25519Verifier,
  formatVerifierKey,
} from './note-keys.js';
import { consistencyProof, inclusionProof } from './proofs.js';
import { TileHashReader } from './tile-hashes.js';
import { decodeEntryBundle } from './entry-bundle.js';
import { TILE_WIDTH, tilePath, tileWidth, type TileRef } from './tile-path.js';
import type { TileStore, TileTransaction } from './tile-store.js';
import { formatTlogProof } from './tlog-proof.js';

export interface LogWriterOptions {
  readonly tiles: TileStore;
  /** The checkpoint origin and the log key's name. */
  readonly origin: string;
  readonly key: PrivateKey;
  readonly cosigners?: readonly CheckpointCosigner[];
  /**
   * Begin a new log on open (origin `<base>/reset-N`, N past every epoch the storage and the
   * key's record know), whatever the stored log holds: the way past LOG_ROLLED_BACK.
   */
  readonly newLog?: boolean;
  /** Failures that do not stop the log (a witness that does not answer). */
  readonly onWarning?: (message: string) => void;
}

/**
 * The origin of a log nobody named (`--log-origin` unset): stable as long as its key is kept,
 * and unique to it: `cards.local/` and the first 8 bytes of SHA-256 of the public key, in hex.
 */
export function defaultLogOrigin(publicKey: Uint8Array): string {
  return `cards.local/${encodeHex(sha256(publicKey).subarray(0, 8))}`;
}

export interface Published {
  readonly size: number;
  /** The signed checkpoint with the cosignatures collected for it. */
  readonly checkpoint: string;
}

/** A log state read from storage: the tree's edge and the checkpoint that signs it. */
interface LogState {
  readonly epoch: number;
  readonly edge: LogEdge;
  /** As stored (cosignatures included). */
  readonly checkpoint: string;
}

export class LogWriter {
  /** The origin given (`--log-origin`); a reset of the registry begins `<base>/reset-N`. */
  readonly baseOrigin: string;
  readonly tiles: TileStore;
  /**
   * The stored hashes of one log, its tiles' inner levels cached: a new reader for each log a
   * reset begins, since the new log's tiles repeat the old one's paths with other hashes.
   */
  #reader: { epoch: number; reader: TileHashReader };
  readonly #key: PrivateKey;
  readonly #cosigning: Cosigning;
  readonly #warn: (message: string) => void;
  #state: LogState;
  #published: Published;
  /** The right edge's range hashes of the published tree (inclusionProof's `edge`). */
  #edge: { of: Published; hashes: Map<number, Uint8Array>; reader: TileHashReader } | undefined;

  private constructor(options: LogWriterOptions, state: LogState) {
    this.baseOrigin = options.origin;
    this.tiles = options.tiles;
    this.#reader = { epoch: state.epoch, reader: this.#epochReader(state.epoch) };
    this.#key = options.key;
    this.#warn = options.onWarning ?? (() => undefined);
    this.#cosigning = new Cosigning({
      cosigners: options.cosigners ?? [],
      onCosigned: (submission, lines) => this.#addCosignature(submission, lines),
      onWarning: this.#warn,
    });
    this.#state = state;
    this.#published = { size: state.edge.size, checkpoint: state.checkpoint };
  }

  /** Opens the log in `tiles`, checking its last checkpoint; a new log publishes size 0. */
  static async open(options: LogWriterOptions): Promise<LogWriter> {
    const writer = new LogWriter(options, { epoch: 0, edge: EMPTY_EDGE, checkpoint: '' });
    if (options.newLog) await writer.#beginNewLog();
    await writer.#update(async () => undefined);
    writer.#published = { size: writer.#state.edge.size, checkpoint: writer.#state.checkpoint };
    writer.#cosign(writer.#state);
    return writer;
  }

  /** Settles when every witness has answered (or given up on) what it was asked. */
  cosigned(): Promise<void> {
    return this.#cosigning.idle();
  }

  /** Gives the witnesses' requests in flight up to `graceMs`, then aborts them. */
  close(graceMs = 1000): Promise<void> {
    return this.#cosigning.close(graceMs);
  }

  /** Which log this is: 0 for the first, N for the one the Nth reset began. */
  get epoch(): number {
    return this.#state.epoch;
  }

  /** The stored hashes of the current log (proofs of its trees). */
  get reader(): TileHashReader {
    return this.#readerOf(this.#state.epoch);
  }

  #readerOf(epoch: number): TileHashReader {
    if (this.#reader.epoch !== epoch) this.#reader = { epoch, reader: this.#epochReader(epoch) };
    return this.#reader.reader;
  }

  /** A reader of the tiles of the log of `epoch` alone (TileStore.readTile). */
  #epochReader(epoch: number): TileHashReader {
    return new TileHashReader({ readTile: (tile) => this.tiles.readTile(tile, epoch) });
  }

  /** The origin of the current log (the base one until the registry is reset). */
  get origin(): string {
    return epochOrigin(this.baseOrigin, this.#state.epoch);
  }

  /** The verifier key in the C2SP/Go vkey form: name+hex8(keyID)+base64(0x01 ‖ key). */
  get vkey(): string {
    return formatVerifierKey(this.origin, KEY_TYPE_ED25519, this.#key.publicKey.raw);
  }

  /** The published tree: its size and signed (cosigned) checkpoint. */
  get published(): Published {
    return this.#published;
  }

  /** Entries appended, published or not (a witness may still be answering). */
  get size(): number {
    return this.#state.edge.size;
  }

  /**
   * The last entries: the rightmost bundle (partial, or the last full one when the size is a
   * multiple of 256), for the start-up check of the entries against their source.
   */
  async lastEntries(): Promise<{ from: number; entries: readonly Uint8Array[] }> {
    const { size, bundle } = this.#state.edge;
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

  /** Appends a batch (see extend). */
  async append(entries: readonly Uint8Array[]): Promise<void> {
    if (entries.length > 0) await this.extend(async () => entries);
  }

  /**
   * Extends the log as its only writer: `next(size)` gives the entries that follow the log's
   * `size` entries (another server sharing the storage may have grown it). One tiles write and
   * one signed checkpoint per batch, committed together; then cosigned and published. A failure
   * leaves the published log as it was; the batch can be retried.
   */
  async extend(next: (size: number) => Promise<readonly Uint8Array[]>): Promise<number> {
    let appended = 0;
    const signed = await this.#update(async (tx, state) => {
      const entries = await next(state.edge.size);
      if (entries.length === 0) return undefined;
      const result = appendEntries(state.edge, entries);
      await tx.write(result.tiles);
      if (result.superseded.length > 0) await tx.dropPartials(result.superseded);
      appended = entries.length;
      return { epoch: state.epoch, edge: result.edge };
    });
    if (signed) this.#publish(signed);
    else this.#adoptStored();
    return appended;
  }

  /**
   * Begins a new log (a reset of the registry): origin `<base>/reset-N`, size 0, its tiles
   * removed. The old log is never rewound: clients that trusted it see a log they have no key
   * for, not a shorter one.
   */
  async restart(): Promise<void> {
    const signed = await this.#update(async (tx, state) => {
      const fresh = { epoch: state.epoch + 1, edge: EMPTY_EDGE };
      // The new checkpoint first: a crash before the tiles are gone leaves a log of size 0,
      // whose stale tiles the next open removes.
      await this.#store(tx, this.#sign(fresh), fresh.epoch);
      await tx.clear();
      return fresh;
    });
    if (signed) this.#publish(signed);
  }

  /** Begins a log past every one the storage and the key's record know of, at size 0. */
  async #beginNewLog(): Promise<void> {
    this.#state = await this.tiles.update(async (tx) => {
      const known = [
        tx.epoch ?? 0,
        epochOf(this.baseOrigin, originOf(tx.checkpoint ?? '')) ?? 0,
        signedPoint(await tx.lastSigned(), this.baseOrigin, this.#key)?.epoch ?? 0,
      ];
      const fresh = { epoch: Math.max(...known) + 1, edge: EMPTY_EDGE };
      const signed = this.#sign(fresh);
      // As restart: the checkpoint first, then the old tiles go.
      await this.#store(tx, signed, fresh.epoch);
      await tx.clear();
      return { ...fresh, checkpoint: signed };
    });
  }

  /** A shared log: takes up what another server appended (or a new log it began). */
  async refresh(): Promise<void> {
    if (!this.tiles.shared) return;
    const stored = await this.tiles.readCheckpoint();
    if (stored === this.#published.checkpoint) return;
    await this.#update(async () => undefined);
    this.#adoptStored();
  }

  /** Publishes the stored state when it is newer than the published one. */
  #adoptStored(): void {
    const { edge, checkpoint, epoch } = this.#state;
    if (!this.#isNewer(epoch, edge.size) || checkpoint === this.#published.checkpoint) return;
    // The same tree: the stored checkpoint may lack a cosignature being kept at this moment.
    const published = this.#published.checkpoint;
    if (sameTree(checkpoint, published))
      this.#published = {
        size: edge.size,
        checkpoint: addSignatureLines(
          published,
          parseNote(checkpoint).signatures.map((s) => s.line),
        ),
      };
    else this.#published = { size: edge.size, checkpoint };
  }

  /** Whether a tree of `size` in log `epoch` is ahead of the published one (never go back). */
  #isNewer(epoch: number, size: number): boolean {
    const published = epochOf(this.baseOrigin, originOf(this.#published.checkpoint)) ?? -1;
    return epoch > published || (epoch === published && size >= this.#published.size);
  }

  /**
   * Runs `change` as the storage's only writer, on the stored state (read again, and checked,
   * when another writer moved it); `change` returns the state to sign and store, or nothing.
   */
  async #update(
    change: (
      tx: TileTransaction,
      state: LogState,
    ) => Promise<{ epoch: number; edge: LogEdge } | undefined>,
  ): Promise<LogState | undefined> {
    const done = await this.tiles.update(async (tx) => {
      const state = await this.#storedState(tx);
      const changed = await change(tx, state);
      if (!changed) return { state, signed: undefined };
      const signed = this.#sign(changed);
      await this.#store(tx, signed, changed.epoch);
      const next = { ...changed, checkpoint: signed };
      return { state: next, signed: next };
    });
    this.#state = done.state;
    return done.signed;
  }

  /** The state in storage: ours when nothing moved, else read back and checked. */
  async #storedState(tx: TileTransaction): Promise<LogState> {
    const stored = tx.checkpoint;
    if (stored !== undefined && stored === this.#state.checkpoint) return this.#state;
    const record = await tx.lastSigned();
    const signedBefore = signedPoint(record, this.baseOrigin, this.#key);
    /** Refuses a log found before what the key signed (`missing`: no checkpoint at all). */
    const notBehind = (found: TreePoint, missing = false): void => {
      if (signedBefore && !isAtOrAfter(found, signedBefore))
        throw logBehind({
          base: this.baseOrigin,
          found: missing ? undefined : found,
          signed: signedBefore,
          log: this.tiles.location,
          record: this.tiles.lastSignedLocation,
        });
    };
    if (stored === undefined) {
      // A new log, or (shared storage) one a reset began: it starts at size 0. Not when the key
      // signed more of this log (its tiles deleted, or dropped from the database).
      const fresh = { epoch: tx.epoch ?? 0, edge: EMPTY_EDGE };
      notBehind({ epoch: fresh.epoch, size: 0, root: edgeRoot(EMPTY_EDGE) }, true);
      await tx.clear();
      const signed = this.#sign(fresh);
      await this.#store(tx, signed, fresh.epoch);
      return { ...fresh, checkpoint: signed };
    }
    const refuse = (why: string, hint: string): CardsError =>
      new CardsError('STORE_CORRUPT', `The transparency log in ${this.tiles.location} ${why}.`, {
        hint,
      });
    const origin = originOf(stored);
    const epoch = epochOf(this.baseOrigin, origin);
    let checkpoint;
    try {
      if (epoch === undefined) throw new Error(`origin "${origin}", expected "${this.baseOrigin}"`);
      ({ checkpoint } = openCheckpoint(
        stored,
        [ed25519Verifier(origin, this.#key.publicKey.raw)],
        origin,
      ));
    } catch (err) {
      throw refuse(
        `has a checkpoint that is not this log's (${(err as Error).message})`,
        'start with the --log-origin and log key the log was made with, or move the log away to start a new log (clients that trusted the old one will refuse it)',
      );
    }
    if (epoch < this.#state.epoch || (epoch === this.#state.epoch && checkpoint.size < this.size))
      throw refuse(
        `went back to size ${checkpoint.size} of ${origin} after ${this.size} entries of ${this.origin}`,
        'restore the log from a backup; never start a new log over the same origin',
      );
    // A log of size 0 has no tiles: stale ones (a crash during a reset) go.
    if (checkpoint.size === 0) await tx.clear();
    const edge = await loadEdge(checkpoint.size, tx);
    if (!equalHashes(edgeRoot(edge), checkpoint.root))
      throw refuse(
        `does not match its signed checkpoint at size ${checkpoint.size}: its tiles were changed`,
        'restore the log folder from a backup; never start a new log over the same origin',
      );
    const found = { epoch, size: checkpoint.size, root: checkpoint.root };
    notBehind(found);
    // A record behind the log (a crash between the two writes, or none kept yet): catch it up.
    if (!signedBefore || !isAtOrAfter(signedBefore, found)) await this.#store(tx, stored, epoch);
    return { epoch, edge, checkpoint: stored };
  }

  /**
   * Stores `signed` (of the log begun after `epoch` resets) as the checkpoint, and as this log's
   * checkpoint in the key's record, beside those of the other logs it keeps (keptRecord).
   */
  async #store(tx: TileTransaction, signed: string, epoch: number): Promise<void> {
    const record = keptRecord(await tx.lastSigned(), signed, this.baseOrigin, this.#key);
    await tx.writeCheckpoint(signed, epoch, record);
  }

  #sign(state: { epoch: number; edge: LogEdge }): string {
    const origin = epochOrigin(this.baseOrigin, state.epoch);
    const checkpoint = { origin, size: state.edge.size, root: edgeRoot(state.edge) };
    return signCheckpoint({ ...checkpoint, extensions: [] }, [ed25519Signer(origin, this.#key)]);
  }

  /** Publishes a checkpoint just stored, and asks the witnesses to cosign it. */
  #publish(state: LogState): void {
    if (this.#isNewer(state.epoch, state.edge.size))
      this.#published = { size: state.edge.size, checkpoint: state.checkpoint };
    this.#cosign(state);
  }

  #cosign(state: LogState): void {
    const { size } = state.edge;
    const proof = (old: number): Promise<Uint8Array[]> =>
      consistencyProof(old, size, this.#readerOf(state.epoch).at(size));
    this.#cosigning.submit({ signed: state.checkpoint, size, proof });
  }

  /**
   * Keeps a witness's cosignature of `submission` in the stored and the published checkpoint
   * while they are of its tree (a newer one gets its own). Each is read as it is when the line
   * is added: cosignatures of other witnesses may have joined it meanwhile.
   */
  async #addCosignature(submission: Submission, lines: string): Promise<void> {
    const added = lines.split(/(?<=\n)/).filter(Boolean);
    const stored = this.#state.checkpoint;
    if (sameTree(stored, submission.signed)) {
      const cosigned = addSignatureLines(stored, added);
      const kept = await this.tiles.replaceCheckpoint(stored, cosigned).catch((err: Error) => {
        this.#warn(`cannot keep the cosignatures: ${err.message}`);
        return false;
      });
      if (kept && this.#state.checkpoint === stored)
        this.#state = { ...this.#state, checkpoint: cosigned };
    }
    const published = this.#published;
    if (sameTree(published.checkpoint, submission.signed))
      this.#published = {
        size: published.size,
        checkpoint: addSignatureLines(published.checkpoint, added),
      };
  }

  /** The tlog-proof (c2sp.org/tlog-proof@v1) of entry `index` in the published tree. */
  async proof(index: number): Promise<string> {
    const published = this.#published;
    const { size, checkpoint } = published;
    if (index >= size) throw new RangeError(`entry ${index} is not in the published tree`);
    if (this.#edge?.of !== published) {
      const epoch = epochOf(this.baseOrigin, originOf(checkpoint)) ?? 0;
      this.#edge = { of: published, hashes: new Map(), reader: this.#readerOf(epoch) };
    }
    const { reader, hashes } = this.#edge;
    const proof = await inclusionProof(index, size, reader.at(size), hashes);
    return formatTlogProof({ index, proof, checkpoint });
  }

  /** A tile or bundle of the published tree, or undefined when that tree has no such tile. */
  async readTile(tile: TileRef): Promise<Uint8Array | undefined> {
    const { size, checkpoint } = this.#published;
    const level = tile.level === 'entries' ? 0 : tile.level;
    if (tileWidth(level, tile.index, size) < tile.width) return undefined;
    return this.tiles.readTile(tile, epochOf(this.baseOrigin, originOf(checkpoint)) ?? 0);
  }
}

/** Whether two signed checkpoints sign one tree (their cosignatures aside). */
function sameTree(a: string, b: string): boolean {
  return a !== '' && b !== '' && parseNote(a).text === parseNote(b).text;
}

/** The origin line of a signed checkpoint ('' for none). */
function originOf(signed: string): string {
  if (signed === '') return '';
  try {
    return parseCheckpoint(parseNote(signed).text).origin;
  } catch {
    return signed.slice(0, signed.indexOf('\n'));
  }
}
