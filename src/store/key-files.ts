/**
 * Key files beside a store (paths.ts): the service key and the local app key, made on first
 * start (PEM PKCS#8, mode 0600, fsync'ed, never overwritten) and read on every start after;
 * and the token keys a server is told to trust (`--jwt-key`).
 */
import { chmod, open, readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { CardsError } from '../core/errors.js';
import {
  generatePrivateKey,
  parsePrivateKey,
  parsePublicKey,
  type PrivateKey,
} from '../crypto/keys.js';
import type { TrustedKey } from '../crypto/tokens.js';
import { fsyncDir } from '../io/fs-durable.js';

export interface KeyFile {
  readonly key: PrivateKey;
  readonly path: string;
  readonly created: boolean;
  /** Set when the file can be read by others than its owner. */
  readonly warning?: string;
}

const withFile = (path: string, err: unknown): unknown =>
  err instanceof CardsError
    ? new CardsError(err.code, `${path}: ${err.message}`, { hint: err.hint })
    : err;

/** Reads a private key file (PEM or base64 DER PKCS#8); FILE_NOT_FOUND when it is missing. */
export async function readPrivateKeyFile(path: string): Promise<KeyFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      throw new CardsError('FILE_NOT_FOUND', `Key file ${path} does not exist.`);
    throw err;
  }
  let key: PrivateKey;
  try {
    key = parsePrivateKey(text);
  } catch (err) {
    throw withFile(path, err);
  }
  const { mode } = await stat(path);
  const warning =
    (mode & 0o077) !== 0
      ? `${path} can be read by other users (mode ${(mode & 0o777).toString(8)}); run chmod 600 ${path}`
      : undefined;
  return { key, path, created: false, ...(warning && { warning }) };
}

/** The key at `path`, made (and written with mode 0600) when there is none yet. */
export async function loadOrCreatePrivateKey(path: string): Promise<KeyFile> {
  try {
    return await readPrivateKeyFile(path);
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

/**
 * The token keys of `--jwt-key` values: each a file (PEM SPKI, base64 DER SPKI, a JWK or a
 * JWKS) or an inline base64 DER SPKI; a value that is neither may be a comma-separated list
 * (how CARDS_JWT_KEY carries several). A JWK's `kid` is kept; keys in a JWKS that are not
 * Ed25519 are skipped.
 */
export async function readTrustedKeys(values: readonly string[]): Promise<TrustedKey[]> {
  const keys: TrustedKey[] = [];
  for (const value of values) keys.push(...(await readTrustedKey(value.trim())));
  return keys;
}

async function readTrustedKey(value: string): Promise<TrustedKey[]> {
  const isFile = await stat(value).then(
    (s) => s.isFile(),
    () => false,
  );
  if (!isFile) {
    if (value.includes(',')) return readTrustedKeys(value.split(',').filter((v) => v.trim()));
    try {
      return [{ key: parsePublicKey(value) }];
    } catch {
      throw new CardsError(
        'KEY_FORMAT',
        `--jwt-key ${value.length > 40 ? `${value.slice(0, 40)}…` : value}: not a file, and not an inline base64 DER SPKI public key.`,
      );
    }
  }
  const text = (await readFile(value, 'utf8')).trim();
  try {
    if (!text.startsWith('{')) return [{ key: parsePublicKey(text) }];
    type Jwk = { keys?: unknown; kid?: unknown; kty?: unknown; crv?: unknown };
    const json = JSON.parse(text) as Jwk;
    const jwks = Array.isArray(json.keys) ? (json.keys as Jwk[]) : [json];
    const keys = jwks
      .filter((jwk) => !Array.isArray(json.keys) || (jwk.kty === 'OKP' && jwk.crv === 'Ed25519'))
      .map((jwk) => ({
        key: parsePublicKey(JSON.stringify(jwk)),
        ...(typeof jwk.kid === 'string' && { kid: jwk.kid }),
      }));
    if (keys.length === 0)
      throw new CardsError(
        'KEY_FORMAT',
        'the JWKS holds no Ed25519 key (kty "OKP", crv "Ed25519")',
      );
    return keys;
  } catch (err) {
    if (err instanceof SyntaxError)
      throw new CardsError('KEY_FORMAT', `${value}: JSON that does not parse`);
    throw withFile(value, err);
  }
}
