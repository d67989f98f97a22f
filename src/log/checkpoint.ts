/**
 * C2SP tlog-checkpoint v1.0.0 ("Note text"): origin, tree size (decimal, no leading zeroes),
 * base64 root hash, then optional non-empty extension lines, each ending in a newline; signed as
 * a signed note. The parser is strict so one checkpoint has one text.
 */
import { CardsError } from '../core/errors.js';
import { decodeBase64, encodeBase64 } from '../core/encoding.js';
import { HASH_SIZE } from './hash.js';
import { openNote, parseNote, signNote, type OpenedNote } from './note.js';
import type { NoteSigner, NoteVerifier } from './note-keys.js';

export interface Checkpoint {
  readonly origin: string;
  readonly size: number;
  readonly root: Uint8Array;
  readonly extensions: readonly string[];
}

const malformed = (why: string): CardsError =>
  new CardsError('LOG_NOTE_MALFORMED', `checkpoint: ${why}`);

export function formatCheckpoint(
  checkpoint: Omit<Checkpoint, 'extensions'> & { extensions?: readonly string[] },
): string {
  const { origin, size, root, extensions = [] } = checkpoint;
  if (origin.length === 0 || origin.includes('\n'))
    throw malformed('the origin must be one non-empty line');
  if (!Number.isSafeInteger(size) || size < 0) throw malformed(`size ${size}`);
  if (root.byteLength !== HASH_SIZE) throw malformed(`root of ${root.byteLength} bytes`);
  if (extensions.some((l) => l.length === 0 || l.includes('\n')))
    throw malformed('empty extension line');
  return [origin, String(size), encodeBase64(root), ...extensions].map((l) => `${l}\n`).join('');
}

export function parseCheckpoint(text: string): Checkpoint {
  if (!text.endsWith('\n')) throw malformed('the text must end with a newline');
  const lines = text.slice(0, -1).split('\n');
  const [origin = '', size = '', root = '', ...extensions] = lines;
  if (lines.length < 3) throw malformed('expected at least origin, size and root lines');
  if (origin.length === 0) throw malformed('empty origin');
  if (!/^(0|[1-9][0-9]{0,15})$/.test(size) || !Number.isSafeInteger(Number(size))) {
    throw malformed(
      `tree size ${JSON.stringify(size.slice(0, 20))} is not a decimal without leading zeroes`,
    );
  }
  const hash = decodeBase64(root);
  if (hash?.byteLength !== HASH_SIZE) throw malformed('the root is not base64 of 32 bytes');
  if (extensions.some((l) => l.length === 0)) throw malformed('empty extension line');
  return { origin, size: Number(size), root: hash, extensions };
}

export function signCheckpoint(checkpoint: Checkpoint, signers: readonly NoteSigner[]): string {
  return signNote(formatCheckpoint(checkpoint), signers);
}

export interface OpenedCheckpoint {
  readonly checkpoint: Checkpoint;
  readonly note: OpenedNote;
}

/**
 * Opens a signed checkpoint: it must verify under one of `verifiers` (all for `origin` when
 * given) and carry that origin.
 */
export function openCheckpoint(
  signed: string | Uint8Array,
  verifiers: readonly NoteVerifier[],
  origin?: string,
): OpenedCheckpoint {
  const checkpoint = parseCheckpoint(parseNote(signed).text);
  if (origin !== undefined && checkpoint.origin !== origin) {
    throw new CardsError(
      'LOG_UNKNOWN_ORIGIN',
      `checkpoint: origin "${checkpoint.origin}", expected "${origin}"`,
    );
  }
  return { checkpoint, note: openNote(signed, verifiers) };
}
