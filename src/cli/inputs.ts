/**
 * Reading what the user points at: files or `-` (stdin), key files, inline-or-file public
 * keys, JSON. A missing file is FILE_NOT_FOUND with the path; bad JSON is a usage error.
 */
import { parseCardPrivateKey, type CardPrivateKey } from '../crypto/signing-key.js';
import { constants } from 'node:buffer';
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { CardsError } from '../core/errors.js';
import {
  parsePrivateKey,
  parsePublicKey,
  type PrivateKey,
  type PublicKey,
} from '../crypto/keys.js';
import { inFile, readPrivateKeyFile } from '../io/key-files.js';
import type { CommandContext } from './context.js';

/**
 * Bytes of one input read whole, at most: each is decoded to text, which a JavaScript string
 * of at most this many characters must hold (a seed file, a card, an identity list: each far
 * smaller), so a larger one is a usage error rather than the runtime's RangeError.
 */
const INPUT_MAX = constants.MAX_STRING_LENGTH;

const tooLarge = (what: string, where: string, bytes: string): CardsError =>
  new CardsError(
    'USAGE',
    `${what} ${where} is ${bytes}: more than the ${INPUT_MAX} bytes an input read whole may hold.`,
  );

export function readFileBytes(ctx: CommandContext, file: string, what: string): Buffer {
  const path = resolve(ctx.cwd, file);
  try {
    const { size } = statSync(path);
    if (size > INPUT_MAX) throw tooLarge(what, path, `${size} bytes`);
    return readFileSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR')
      throw new CardsError('FILE_NOT_FOUND', `${what} ${path} does not exist.`);
    if (code === 'EISDIR')
      throw new CardsError('USAGE', `${what} ${path} is a folder, not a file.`);
    if (code === 'ERR_FS_FILE_TOO_LARGE') throw tooLarge(what, path, 'larger');
    throw err;
  }
}

/** The bytes of FILE, or of stdin for `-`, at most INPUT_MAX. */
export async function readInput(ctx: CommandContext, file: string, what: string): Promise<Buffer> {
  if (file !== '-') return readFileBytes(ctx, file, what);
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of ctx.stdin) {
    const piece = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array);
    bytes += piece.byteLength;
    if (bytes > INPUT_MAX) throw tooLarge(what, 'on stdin', 'larger');
    chunks.push(piece);
  }
  return Buffer.concat(chunks);
}

export function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new CardsError('USAGE', `${what} is not JSON (${(err as Error).message}).`);
  }
}

/** A private key file named on the command line, read by the one reader (src/server). */
export function readPrivateKey(ctx: CommandContext, file: string): PrivateKey {
  return readPrivateKeyFile(resolve(ctx.cwd, file)).key;
}

/** A card key file of any type the CLI signs with (Ed25519, P-256, RSA). */
export function readCardKeyFile(ctx: CommandContext, file: string): CardPrivateKey {
  const text = readFileBytes(ctx, file, 'Key file').toString('utf8');
  return withWhere(() => parseCardPrivateKey(text), file);
}

/** A public key given inline (base64 DER SPKI, PEM or a JWK) rather than a file's name. */
export const isInlinePublicKey = (value: string): boolean =>
  /^(MC|-----BEGIN|\{)/.test(value.trim());

export function readPublicKey(ctx: CommandContext, value: string): PublicKey {
  const inline = value.trim();
  if (isInlinePublicKey(inline)) return withWhere(() => parsePublicKey(inline), 'argument');
  const text = readFileBytes(ctx, value, 'Public key file').toString('utf8');
  // A private key file names its public key too: accept it for convenience.
  if (/PRIVATE KEY|^MC4CAQAw/.test(text.trim()))
    return withWhere(() => parsePrivateKey(text).publicKey, value);
  return withWhere(() => parsePublicKey(text), value);
}

/** What `fn` returns; a refusal says `where` first, as a key file's does (inFile). */
function withWhere<T>(fn: () => T, where: string): T {
  try {
    return fn();
  } catch (err) {
    throw inFile(where, err);
  }
}

/** `NAME=VALUE`, as in --signer app=app.pem and --trust app=KEY. */
export function splitPair(text: string, flag: string): [string, string] {
  const at = text.indexOf('=');
  if (at <= 0 || at === text.length - 1)
    throw new CardsError('USAGE', `${flag} expects NAME=VALUE, got "${text}".`);
  return [text.slice(0, at), text.slice(at + 1)];
}
