/**
 * Private key files: the one reader every part of `cards` uses (the CLI's --key, --app-key and
 * keystore, the server's --service-key), a key kept in a file made on first use (the witness),
 * and the one message for a kept key that does not parse, wherever it is kept.
 */
import { CardsError, reworded } from '../core/errors.js';
import { generatePrivateKey, parsePrivateKey, type PrivateKey } from '../crypto/keys.js';
import { keepPrivateFile, readPrivateFile } from './private-file.js';

export interface KeyFile {
  readonly key: PrivateKey;
  readonly path: string;
  readonly created: boolean;
  /** Set when the file can be read by others than its owner. */
  readonly warning?: string;
}

/** A CardsError about a file's content, with the file's path in front of the message. */
export const inFile = (path: string, err: unknown): unknown =>
  err instanceof CardsError ? reworded(err, `${path}: ${err.message}`, { cause: err }) : err;

/**
 * Reads a private key file (PEM or base64 DER PKCS#8): FILE_NOT_FOUND when it is missing,
 * KEY_FORMAT (with the path) when it holds no key, and a warning when its mode lets others read
 * it. Synchronous: a key is read once, before any work, by the CLI and by a starting server.
 */
export function readPrivateKeyFile(path: string, what = 'Key file'): KeyFile {
  const found = readPrivateFile(path);
  if (!found) throw new CardsError('FILE_NOT_FOUND', `${what} ${path} does not exist.`);
  let key: PrivateKey;
  try {
    key = parsePrivateKey(found.text);
  } catch (err) {
    throw inFile(path, err);
  }
  return { key, path, created: false, ...(found.warning && { warning: found.warning }) };
}

/** The key at `path`, made when there is none yet (src/io/private-file.ts: whole or not at all). */
export async function loadOrCreatePrivateKey(path: string): Promise<KeyFile> {
  const kept = keepPrivateFile(path, () => generatePrivateKey().toPem());
  return {
    key: parseKeptKey(kept.text, `file ${path}`),
    path,
    created: kept.created,
    ...(kept.warning && { warning: kept.warning }),
  };
}

/**
 * The key kept at `where` ("file …", "kept in the database …"). One that holds no whole key was
 * left by a start cut off mid-write (an older version wrote in place) or was damaged: refused,
 * saying what to do.
 */
export function parseKeptKey(text: string, where: string): PrivateKey {
  try {
    return parsePrivateKey(text);
  } catch (err) {
    if (!(err instanceof CardsError)) throw err;
    const what =
      text.trim() === ''
        ? 'is empty: a start was cut off while making it'
        : 'does not hold a whole key: a start was cut off while writing it, or it was damaged';
    const why = err.cause instanceof Error ? err.cause.message : err.message;
    throw new CardsError('KEY_FORMAT', `The key ${where} ${what} (${why}).`, {
      hint: 'if nothing was ever signed with it (no card stored, no token minted), delete it and start again to make a new one; otherwise restore it from a backup',
      cause: err,
    });
  }
}
