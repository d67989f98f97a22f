/**
 * Private key files: the one reader every part of `cards` uses (the CLI's --key, --app-key and
 * keystore, the server's --service-key), and the maker of the keys a server keeps in its home
 * (file-home.ts): made on first start (PEM PKCS#8, mode 0600, written whole or not at all, never
 * overwritten) and read on every start after.
 */
import { readFileSync, statSync } from 'node:fs';
import { CardsError } from '../core/errors.js';
import { generatePrivateKey, parsePrivateKey, type PrivateKey } from '../crypto/keys.js';
import { createFileSync } from '../io/fs-durable.js';

export interface KeyFile {
  readonly key: PrivateKey;
  readonly path: string;
  readonly created: boolean;
  /** Set when the file can be read by others than its owner. */
  readonly warning?: string;
}

/** A CardsError about a file's content, with the file's path in front of the message. */
export const inFile = (path: string, err: unknown): unknown =>
  err instanceof CardsError
    ? new CardsError(err.code, `${path}: ${err.message}`, {
        ...(err.hint ? { hint: err.hint } : {}),
        cause: err,
      })
    : err;

/**
 * Reads a private key file (PEM or base64 DER PKCS#8): FILE_NOT_FOUND when it is missing,
 * KEY_FORMAT (with the path) when it holds no key, and a warning when its mode lets others read
 * it. Synchronous: a key is read once, before any work, by the CLI and by a starting server.
 */
export function readPrivateKeyFile(path: string, what = 'Key file'): KeyFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR')
      throw new CardsError('FILE_NOT_FOUND', `${what} ${path} does not exist.`);
    if (code === 'EISDIR')
      throw new CardsError('USAGE', `${what} ${path} is a folder, not a file.`);
    throw err;
  }
  let key: PrivateKey;
  try {
    key = parsePrivateKey(text);
  } catch (err) {
    throw inFile(path, err);
  }
  const { mode } = statSync(path);
  const warning =
    (mode & 0o077) !== 0
      ? `${path} can be read by other users (mode ${(mode & 0o777).toString(8)}); run chmod 600 ${path}`
      : undefined;
  return { key, path, created: false, ...(warning && { warning }) };
}

/**
 * The key at `path`, made when there is none yet: written whole or not at all (createFileSync:
 * temporary file, fsync, link, fsync of the folder), mode 0600, never replacing a key. A file
 * that holds no whole key was left by a start cut off mid-write (an older version wrote in
 * place) or was damaged: refused, naming the file and what to do.
 */
export async function loadOrCreatePrivateKey(path: string): Promise<KeyFile> {
  try {
    return readPrivateKeyFile(path);
  } catch (err) {
    if (err instanceof CardsError && err.code === 'KEY_FORMAT') throw unfinished(path, err);
    if (!(err instanceof CardsError) || err.code !== 'FILE_NOT_FOUND') throw err;
  }
  const key = generatePrivateKey();
  try {
    createFileSync(path, key.toPem(), 0o600);
  } catch (err) {
    // Another process made it between our read and our create: use theirs.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return readPrivateKeyFile(path);
    throw err;
  }
  return { key, path, created: true };
}

function unfinished(path: string, err: CardsError): CardsError {
  const size = statSync(path).size;
  const what =
    size === 0
      ? 'is empty (0 bytes): a start was cut off while making it'
      : 'does not hold a whole key: a start was cut off while writing it, or it was damaged';
  const why = err.cause instanceof Error ? err.cause.message : err.message;
  return new CardsError('KEY_FORMAT', `The key file ${path} ${what} (${why}).`, {
    hint: `if nothing was ever signed with it (no card stored, no token minted), delete ${path} and start again to make a new one; otherwise restore it from a backup`,
    cause: err,
  });
}
