/**
 * What this client accepted of each log: the last checkpoint it verified for an origin, kept in
 * `$CARDS_HOME/logs/<SHA-256(origin)[:8] hex>.json`, and the rule that every later checkpoint it
 * sees must be consistent with it (RFC 9162 2.1.4), with the proof computed from the log's
 * tiles. A checkpoint that is not (a fork, or a log that rewound and no longer serves the tree it
 * signed) is LOG_INCONSISTENT, exit 8. The state only moves forward.
 */
import { CardsError } from '../core/errors.js';
import { decodeBase64, encodeBase64 } from '../core/encoding.js';
import type { Checkpoint } from '../log/checkpoint.js';
import { equalHashes } from '../log/hash.js';
import { consistencyProof, verifyConsistency } from '../log/proofs.js';
import { TileHashReader, type TileReader } from '../log/tile-hashes.js';
import type { CommandContext } from './context.js';
import { homeDocumentPath, openJsonDocument } from './json-document.js';

interface TrustFile {
  origin: string;
  size: number;
  root: string;
  checkpoint: string;
}

interface Accepted {
  /** The size this client had accepted before (undefined: first contact). */
  readonly previous: number | undefined;
  /** The size accepted now (the larger of the two). */
  readonly size: number;
}

const trustPath = (ctx: CommandContext, origin: string): string =>
  homeDocumentPath(ctx.home, 'logs', origin, 16);

/** The state accepted for `origin` (null: first contact), a lowdb document (json-document.ts). */
function openTrust(path: string, origin: string) {
  return openJsonDocument<TrustFile | null>(
    path,
    (text) => {
      const file = JSON.parse(text) as TrustFile;
      if (file.origin !== origin || !Number.isSafeInteger(file.size) || !decodeBase64(file.root))
        throw new CardsError('CONFIG_INVALID', `${path}: not the log state of ${origin}.`);
      return file;
    },
    null,
  );
}

const inconsistent = (why: string): CardsError =>
  new CardsError('LOG_INCONSISTENT', `The log forked or rewound: ${why}.`, {
    hint: 'keep the saved proofs and checkpoints as evidence; do not trust cards from this log until its operator explains',
  });

/**
 * Checks `checkpoint` (signature already verified) against the last one accepted for its
 * origin, fetching tiles from `tiles` for the consistency proof, and remembers the larger.
 */
export async function acceptCheckpoint(
  ctx: CommandContext,
  checkpoint: Checkpoint,
  signed: string,
  tiles: TileReader | undefined,
): Promise<Accepted> {
  const trust = openTrust(trustPath(ctx, checkpoint.origin), checkpoint.origin);
  const known = trust.data;
  const save = (): void => {
    trust.data = {
      origin: checkpoint.origin,
      size: checkpoint.size,
      root: encodeBase64(checkpoint.root),
      checkpoint: signed,
    };
    trust.write();
  };
  if (!known) {
    save();
    return { previous: undefined, size: checkpoint.size };
  }
  const knownRoot = decodeBase64(known.root) as Uint8Array;
  if (known.size === checkpoint.size) {
    if (!equalHashes(knownRoot, checkpoint.root))
      throw inconsistent(`two different trees of size ${known.size} were signed`);
    return { previous: known.size, size: known.size };
  }
  const [older, newer] =
    known.size < checkpoint.size
      ? [{ size: known.size, root: knownRoot }, checkpoint]
      : [checkpoint, { size: known.size, root: knownRoot }];
  if (!tiles)
    throw new CardsError(
      'USAGE',
      `This checkpoint (size ${checkpoint.size}) differs from the one accepted (size ${known.size}); give --url to fetch the tiles that prove them consistent.`,
    );
  let proof: Uint8Array[];
  try {
    proof = await consistencyProof(
      older.size,
      newer.size,
      new TileHashReader(tiles).at(newer.size),
    );
  } catch (err) {
    if (err instanceof CardsError && err.code === 'STORE_CORRUPT')
      throw inconsistent(
        `the log no longer serves the tree of size ${newer.size} it signed (${err.message})`,
      );
    throw err;
  }
  if (!verifyConsistency(older.size, newer.size, older.root, newer.root, proof))
    throw inconsistent(
      `the tree of size ${older.size} is not a prefix of the tree of size ${newer.size}`,
    );
  if (checkpoint.size > known.size) save();
  return { previous: known.size, size: Math.max(known.size, checkpoint.size) };
}
