/**
 * Private key files: the one reader every part of `cards` uses (the CLI's --key, --app-key and
 * keystore, the server's --service-key), and the maker of the keys a server keeps in its home
 * (file-home.ts): made on first start (PEM PKCS#8, mode 0600, fsync'ed, never overwritten) and
 * read on every start after.
 */
import { readFileSync, statSync } from 'node:fs';
import { chmod, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { CardsError } from '../core/errors.js';
import { generatePrivateKey, parsePrivateKey, type PrivateKey } from '../crypto/keys.js';
import { fsyncDir } from '../io/fs-durable.js';

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

/** The key at `path`, made (and written with mode 0600) when there is none yet. */
export async function loadOrCreatePrivateKey(path: string): Promise<KeyFile> {
  try {
    return readPrivateKeyFile(path);
  } catch (err) {
    if (!(err instanceof CardsError) || err.code !== 'FILE_NOT_FOUND') throw err;
  }
  const key = generatePrivateKey();
  let handle;
  try {
    handle = await open(path, 'wx', 0o600);
  } catch (err) {
    // Another process made it between our read and our create: use theirs.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return readPrivateKeyFile(path);
    throw err;
  }
  try {
    await handle.writeFile(key.toPem());
    await handle.sync();
  } finally {
    await handle.close();
  }
  await chmod(path, 0o600);
  await fsyncDir(dirname(path));
  return { key, path, created: true };
}
