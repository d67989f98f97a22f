/**
 * The witness's rules (C2SP tlog-witness v1.0.0, "add-checkpoint"), without I/O: parse the
 * request body (old size line, up to 63 consistency proof lines, an empty line, a checkpoint),
 * then check, in the spec's order, origin known (404), a trusted log signature (403), old size
 * not above the new one (400), old size equal to the latest cosigned size (409 with that size),
 * an empty proof from size 0, equal roots at equal sizes (409), and the consistency proof (422;
 * empty at equal sizes);
 * only then cosign (cosignature/v1) and hand back the new record to persist before answering.
 * Refusals are CardsErrors whose status (the wire table's) is the spec's HTTP status.
 */
import { CardsError } from '../core/errors.js';
import { decodeBase64, decodeUtf8, encodeBase64Each } from '../core/encoding.js';
import { openCheckpoint, parseCheckpoint, type Checkpoint } from './checkpoint.js';
import type { Cosigner } from './cosignature.js';
import { HASH_SIZE, equalHashes } from './hash.js';
import { parseNote } from './note.js';
import type { NoteVerifier } from './note-keys.js';
import { verifyConsistency } from './proofs.js';

const MAX_PROOF_LINES = 63;

export interface AddCheckpointRequest {
  readonly oldSize: number;
  readonly proof: readonly Uint8Array[];
  /** The submitted signed checkpoint, verbatim. */
  readonly signedCheckpoint: string;
  readonly checkpoint: Checkpoint;
}

const malformed = (why: string): CardsError =>
  new CardsError('LOG_NOTE_MALFORMED', `add-checkpoint: ${why}`);

export function parseAddCheckpoint(body: string | Uint8Array): AddCheckpointRequest {
  const text = typeof body === 'string' ? body : decodeUtf8(body);
  if (text === undefined) throw malformed('the body is not UTF-8');
  const blank = text.indexOf('\n\n');
  if (blank < 0) throw malformed('no empty line between the proof and the checkpoint');
  const [oldLine = '', ...proofLines] = text.slice(0, blank).split('\n');
  const old = /^old (0|[1-9][0-9]{0,15})$/.exec(oldLine);
  if (!old || !Number.isSafeInteger(Number(old[1])))
    throw malformed('the first line must be "old <size>"');
  if (proofLines.length > MAX_PROOF_LINES)
    throw malformed(`more than ${MAX_PROOF_LINES} proof lines`);
  const proof = proofLines.map((line) => {
    const hash = decodeBase64(line);
    if (hash?.byteLength !== HASH_SIZE) throw malformed('a proof line is not base64 of 32 bytes');
    return hash;
  });
  const signedCheckpoint = text.slice(blank + 2);
  const checkpoint = parseCheckpoint(parseNote(signedCheckpoint).text);
  return { oldSize: Number(old[1]), proof, signedCheckpoint, checkpoint };
}

export function formatAddCheckpoint(
  oldSize: number,
  proof: readonly Uint8Array[],
  signedCheckpoint: string,
): string {
  return `old ${oldSize}\n${encodeBase64Each(proof)
    .map((h) => `${h}\n`)
    .join('')}\n${signedCheckpoint}`;
}

/** The latest checkpoint a witness cosigned for one origin. */
export interface WitnessRecord {
  readonly size: number;
  readonly root: Uint8Array;
}

export interface AddCheckpointContext {
  /** Trusted log keys by origin. */
  readonly logs: ReadonlyMap<string, readonly NoteVerifier[]>;
  /** The latest record for an origin, or undefined if it never cosigned one. */
  readonly latest: WitnessRecord | undefined;
  readonly cosigners: readonly Cosigner[];
  /** POSIX seconds. */
  readonly now: number;
}

export type AddCheckpointResult =
  | { readonly ok: true; readonly record: WitnessRecord; readonly cosignatures: string }
  | { readonly ok: false; readonly error: CardsError; readonly latestSize?: number };

/** Applies the spec's checks to a parsed request; never throws for a client's input. */
export function addCheckpoint(
  request: AddCheckpointRequest,
  ctx: AddCheckpointContext,
): AddCheckpointResult {
  const fail = (error: CardsError, latestSize?: number): AddCheckpointResult => ({
    ok: false,
    error,
    ...(latestSize === undefined ? {} : { latestSize }),
  });
  const { checkpoint, oldSize, proof } = request;
  const keys = ctx.logs.get(checkpoint.origin);
  if (!keys) {
    return fail(
      new CardsError(
        'LOG_UNKNOWN_ORIGIN',
        `add-checkpoint: unknown log origin "${checkpoint.origin}"`,
      ),
    );
  }
  try {
    openCheckpoint(request.signedCheckpoint, keys, checkpoint.origin);
  } catch (err) {
    if (err instanceof CardsError)
      return fail(new CardsError('LOG_SIGNATURE_INVALID', err.message));
    throw err;
  }
  if (oldSize > checkpoint.size) {
    return fail(malformed(`old size ${oldSize} is above the checkpoint size ${checkpoint.size}`));
  }
  const latestSize = ctx.latest?.size ?? 0;
  if (oldSize !== latestSize) {
    return fail(
      new CardsError(
        'LOG_SIZE_MISMATCH',
        `add-checkpoint: old size ${oldSize}, the latest cosigned is ${latestSize}`,
      ),
      latestSize,
    );
  }
  if (oldSize === 0 && proof.length > 0) {
    return fail(
      new CardsError('LOG_PROOF_INVALID', 'add-checkpoint: the proof must be empty from size 0'),
    );
  }
  if (ctx.latest && oldSize === checkpoint.size && !equalHashes(ctx.latest.root, checkpoint.root)) {
    return fail(
      new CardsError(
        'LOG_INCONSISTENT',
        `add-checkpoint: a different root at size ${oldSize}: the log forked`,
      ),
      latestSize,
    );
  }
  // RFC 6962's proof from a size to itself is empty: lines there are not a proof of it.
  if (ctx.latest && oldSize > 0) {
    if (!verifyConsistency(oldSize, checkpoint.size, ctx.latest.root, checkpoint.root, proof)) {
      return fail(
        new CardsError(
          'LOG_PROOF_INVALID',
          oldSize === checkpoint.size
            ? `add-checkpoint: the proof from size ${oldSize} to itself must be empty`
            : `add-checkpoint: no consistency from size ${oldSize} to ${checkpoint.size}`,
        ),
      );
    }
  }
  const text = parseNote(request.signedCheckpoint).text;
  const cosignatures = ctx.cosigners.map((c) => c.cosign(text, ctx.now)).join('');
  return { ok: true, record: { size: checkpoint.size, root: checkpoint.root }, cosignatures };
}
