/**
 * C2SP tlog-proof (`c2sp.org/tlog-proof@v1`, the spec at C2SP commit ab17a74, not yet tagged):
 * the header line, an optional `extra <base64>` line, `index <N>`, the inclusion proof hashes
 * (base64, leaf's sibling first), an empty line, then the signed checkpoint verbatim.
 * Verification follows its "Verifying a tlog proof": leaf hash, checkpoint signed by a trusted
 * log key for the origin, cosignatures by policy, then the inclusion proof.
 */
import { CardsError } from '../core/errors.js';
import { decodeBase64, encodeBase64, encodeBase64Each, utf8 } from '../core/encoding.js';
import { openCheckpoint, parseCheckpoint, type Checkpoint } from './checkpoint.js';
import { HASH_SIZE, leafHash } from './hash.js';
import { parseNote } from './note.js';
import type { NoteVerifier } from './note-keys.js';
import { verifyInclusion } from './proofs.js';

const TLOG_PROOF_HEADER = 'c2sp.org/tlog-proof@v1';

export interface TlogProof {
  readonly extra?: Uint8Array;
  readonly index: number;
  readonly proof: readonly Uint8Array[];
  /** The signed checkpoint, verbatim (cosignatures included). */
  readonly checkpoint: string;
}

const malformed = (why: string): CardsError =>
  new CardsError('LOG_NOTE_MALFORMED', `tlog proof: ${why}`);

export function formatTlogProof(p: TlogProof): string {
  const lines = [TLOG_PROOF_HEADER];
  if (p.extra) lines.push(`extra ${encodeBase64(p.extra)}`);
  lines.push(`index ${p.index}`, ...encodeBase64Each(p.proof));
  return `${lines.join('\n')}\n\n${p.checkpoint}`;
}

export function parseTlogProof(text: string): TlogProof {
  const blank = text.indexOf('\n\n');
  if (blank < 0) throw malformed('no empty line before the checkpoint');
  const lines = text.slice(0, blank).split('\n');
  const checkpoint = text.slice(blank + 2);
  if (lines.shift() !== TLOG_PROOF_HEADER)
    throw malformed(`the first line must be ${TLOG_PROOF_HEADER}`);
  let extra: Uint8Array | undefined;
  if (lines[0]?.startsWith('extra ')) {
    extra = decodeBase64(lines.shift()?.slice(6) ?? '');
    if (!extra) throw malformed('extra is not base64');
  }
  const index = /^index (0|[1-9][0-9]{0,15})$/.exec(lines.shift() ?? '');
  if (!index || !Number.isSafeInteger(Number(index[1]))) throw malformed('expected "index N"');
  const proof = lines.map((line) => {
    const hash = decodeBase64(line);
    if (hash?.byteLength !== HASH_SIZE) throw malformed('a proof line is not base64 of 32 bytes');
    return hash;
  });
  if (proof.length > 63) throw malformed('more than 63 proof hashes');
  parseNote(checkpoint); // the checkpoint must at least be a signed note
  return { ...(extra ? { extra } : {}), index: Number(index[1]), proof, checkpoint };
}

export interface VerifiedTlogProof {
  readonly checkpoint: Checkpoint;
  readonly index: number;
  /** Names of the witnesses whose cosignatures verified. */
  readonly witnesses: readonly string[];
}

export interface VerifyTlogProofOptions {
  readonly origin?: string;
  readonly logKeys: readonly NoteVerifier[];
  readonly witnessKeys?: readonly NoteVerifier[];
  /** Cosignatures required from distinct `witnessKeys` (default 0). */
  readonly witnessQuorum?: number;
}

/** The names of the `witnessKeys` whose cosignatures of a signed checkpoint verify. */
export function cosignersOf(signed: string, witnessKeys: readonly NoteVerifier[]): string[] {
  const note = parseNote(signed);
  const text = utf8(note.text);
  const names: string[] = [];
  for (const w of witnessKeys) {
    const sig = note.signatures.find((s) => s.name === w.name && s.keyId === w.keyId);
    if (sig && w.verify(text, sig.signature) && !names.includes(w.name)) names.push(w.name);
  }
  return names;
}

/** Verifies that `entry` is at the proof's index in the signed, optionally witnessed, tree. */
export function verifyTlogProof(
  proofText: string,
  entry: Uint8Array,
  options: VerifyTlogProofOptions,
): VerifiedTlogProof {
  const parsed = parseTlogProof(proofText);
  const { checkpoint } = openCheckpoint(parsed.checkpoint, options.logKeys, options.origin);
  const quorum = options.witnessQuorum ?? 0;
  const witnesses = quorum > 0 ? cosignersOf(parsed.checkpoint, options.witnessKeys ?? []) : [];
  if (quorum > 0) {
    if (witnesses.length < quorum) {
      throw new CardsError(
        'LOG_SIGNATURE_INVALID',
        `tlog proof: ${witnesses.length} of ${quorum} required witness cosignatures verify`,
      );
    }
  }
  if (
    !verifyInclusion(leafHash(entry), parsed.index, checkpoint.size, parsed.proof, checkpoint.root)
  ) {
    throw new CardsError(
      'LOG_PROOF_INVALID',
      `tlog proof: entry ${parsed.index} is not in the checkpointed tree`,
    );
  }
  return { checkpoint, index: parsed.index, witnesses };
}

/**
 * Whether `proofText` binds the leaf hash `leaf` to the tree its checkpoint names (RFC 9162
 * section 2.1.3.2), its signatures aside: a server checks a proof it made before answering it.
 */
export function provesLeaf(proofText: string, leaf: Uint8Array): boolean {
  const parsed = parseTlogProof(proofText);
  const checkpoint = parseCheckpoint(parseNote(parsed.checkpoint).text);
  return verifyInclusion(leaf, parsed.index, checkpoint.size, parsed.proof, checkpoint.root);
}
