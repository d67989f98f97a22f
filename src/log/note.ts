/**
 * C2SP signed-note v1.0.0 ("Format", "Signatures"): a UTF-8 text ending in a newline, a blank
 * line, then signature lines `— <key name> base64(uint32 key ID ‖ signature)`. The text is
 * separated from the signatures by the last empty line. Parsing is strict and never throws
 * anything but CardsError LOG_NOTE_MALFORMED; opening follows the spec's rules for keys: unknown
 * signatures are ignored, a known key's failing signature rejects the note, and a note with no
 * verified known signature is rejected (LOG_SIGNATURE_INVALID).
 */
import { CardsError } from '../core/errors.js';
import { decodeBase64, decodeUtf8, encodeBase64, utf8 } from '../core/encoding.js';
import { isValidKeyName, type NoteSigner, type NoteVerifier } from './note-keys.js';

/** More than the 16 the spec asks verifiers to accept; bounds the work a hostile note causes. */
const MAX_NOTE_SIGNATURES = 100;
const MAX_NOTE_SIZE = 1 << 20;

export interface NoteSignature {
  readonly name: string;
  readonly keyId: number;
  /** The signature bytes after the key ID. */
  readonly signature: Uint8Array;
  /** The line as it appears, with its final newline. */
  readonly line: string;
}

export interface Note {
  /** The note text, final newline included. */
  readonly text: string;
  readonly signatures: readonly NoteSignature[];
}

/** signed-note "Format": no ASCII control characters other than newline. */
function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 && c !== 0x0a) return true;
  }
  return false;
}

const malformed = (why: string): CardsError =>
  new CardsError('LOG_NOTE_MALFORMED', `signed note: ${why}`);

/** One signature line (without its newline) → its parts. */
export function parseSignatureLine(line: string): NoteSignature {
  const match = /^\u2014 (\S+) (\S+)$/u.exec(line);
  if (!match) throw malformed(`not a signature line: ${JSON.stringify(line.slice(0, 80))}`);
  const [, name = '', b64 = ''] = match;
  if (!isValidKeyName(name)) throw malformed(`bad key name ${JSON.stringify(name)}`);
  const bytes = decodeBase64(b64);
  if (!bytes || bytes.byteLength < 5)
    throw malformed(`signature of ${name} is not base64 of 5+ bytes`);
  const keyId = new DataView(bytes.buffer, bytes.byteOffset).getUint32(0);
  return { name, keyId, signature: bytes.subarray(4), line: `${line}\n` };
}

export function formatSignatureLine(name: string, keyId: number, signature: Uint8Array): string {
  const bytes = new Uint8Array(4 + signature.byteLength);
  new DataView(bytes.buffer).setUint32(0, keyId);
  bytes.set(signature, 4);
  return `\u2014 ${name} ${encodeBase64(bytes)}\n`;
}

/** Checks that `text` can be a note text: UTF-8, no control characters but newline, ends in one. */
function checkNoteText(text: string): void {
  if (!text.endsWith('\n')) throw malformed('the text must end with a newline');
  if (hasControl(text)) throw malformed('control character in the text');
  if (/\p{Surrogate}/u.test(text)) throw malformed('not UTF-8 (a lone surrogate)');
}

export function parseNote(message: string | Uint8Array): Note {
  const bytes = typeof message === 'string' ? utf8(message) : message;
  if (bytes.byteLength > MAX_NOTE_SIZE) throw malformed(`larger than ${MAX_NOTE_SIZE} bytes`);
  const decoded = typeof message === 'string' ? message : decodeUtf8(bytes);
  if (decoded === undefined) throw malformed('not valid UTF-8');
  if (hasControl(decoded)) throw malformed('control character');
  const split = decoded.lastIndexOf('\n\n');
  if (split < 0 || !decoded.endsWith('\n')) {
    throw malformed('expected a text, a blank line and signature lines, each ending in a newline');
  }
  const text = decoded.slice(0, split + 1);
  const lines = decoded.slice(split + 2, -1).split('\n');
  if (lines.length > MAX_NOTE_SIGNATURES)
    throw malformed(`more than ${MAX_NOTE_SIGNATURES} signatures`);
  return { text, signatures: lines.map(parseSignatureLine) };
}

/** The note text followed by a blank line and one signature line per signer. */
export function signNote(text: string, signers: readonly NoteSigner[]): string {
  checkNoteText(text);
  if (signers.length === 0) throw new RangeError('signNote: no signer');
  const message = utf8(text);
  const lines = signers.map((s) => formatSignatureLine(s.name, s.keyId, s.sign(message)));
  return `${text}\n${lines.join('')}`;
}

/**
 * Adds signature lines (a witness's cosignatures) to a signed note; a line takes the place of
 * one of the same key (name and key ID), so a checkpoint cosigned again carries one cosignature
 * per witness and the log's own signature stays first.
 */
export function addSignatureLines(signedNote: string, lines: readonly string[]): string {
  const note = parseNote(signedNote);
  const signatures = [...note.signatures];
  for (const line of lines) {
    const sig = parseSignatureLine(line.endsWith('\n') ? line.slice(0, -1) : line);
    const at = signatures.findIndex((s) => s.name === sig.name && s.keyId === sig.keyId);
    if (at < 0) signatures.push(sig);
    else signatures[at] = sig;
  }
  return `${note.text}\n${signatures.map((s) => s.line).join('')}`;
}

export interface OpenedNote extends Note {
  /** The signatures that verified, in note order. */
  readonly verified: readonly NoteSignature[];
}

/**
 * Verifies a note against trusted keys (signed-note "Signatures"): signatures whose name and key
 * ID do not both match a trusted key are ignored; a matching one that fails rejects the note;
 * with no matching signature verified the note is rejected.
 */
export function openNote(
  message: string | Uint8Array,
  verifiers: readonly NoteVerifier[],
): OpenedNote {
  const note = parseNote(message);
  const text = utf8(note.text);
  const verified: NoteSignature[] = [];
  for (const sig of note.signatures) {
    const verifier = verifiers.find((v) => v.name === sig.name && v.keyId === sig.keyId);
    if (!verifier) continue;
    if (!verifier.verify(text, sig.signature)) {
      throw new CardsError(
        'LOG_SIGNATURE_INVALID',
        `signed note: the signature of ${sig.name} does not verify`,
      );
    }
    verified.push(sig);
  }
  if (verified.length === 0) {
    const names = verifiers.map((v) => v.name).join(', ');
    throw new CardsError(
      'LOG_SIGNATURE_INVALID',
      `signed note: not signed by a trusted key (${names})`,
    );
  }
  return { ...note, verified };
}
