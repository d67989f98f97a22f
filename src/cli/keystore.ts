/**
 * Local key storage (spec 1.6): one private key per identity under <CARDS_HOME>/keys, as PEM
 * PKCS#8, files 0600 in a 0700 folder.
 *
 * File names encode the identity so that any identity is safe on any file system: bytes
 * outside [a-z0-9._@+-] (upper case included, for case-insensitive file systems) become
 * %XX, a leading dot too; names too long for a file system are replaced by a SHA-256 and the
 * identity is kept in the keystore index, `keys/index.json` (a lowdb document,
 * json-document.ts). Keys are written so that a reader never sees half a file, and never
 * overwritten unless asked.
 */
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CardsError } from '../core/errors.js';
import { parseCardPrivateKey, type CardPrivateKey } from '../crypto/signing-key.js';
import { createFileSync, replaceFileSync } from '../io/fs-durable.js';
import { readPrivateKeyFile } from '../io/key-files.js';
import { openJsonDocument } from './json-document.js';
import { shellQuote } from './shell-quote.js';

/** Anything that writes itself as PEM PKCS#8 (a PrivateKey, or seed's fresh keys). */
export interface PemKey {
  toPem(): string;
}

const SAFE = /^[a-z0-9_@+-]$|^\.$/;
const MAX_NAME = 200;

export function encodeIdentity(identity: string): string {
  let name = '';
  for (const byte of Buffer.from(identity, 'utf8')) {
    const char = String.fromCharCode(byte);
    name +=
      byte < 0x80 && SAFE.test(char) && !(name === '' && char === '.')
        ? char
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  if (name.length > MAX_NAME) name = `=${createHash('sha256').update(identity).digest('hex')}`;
  return name;
}

export function decodeIdentity(name: string): string | undefined {
  if (name.startsWith('=')) return undefined;
  try {
    return decodeURIComponent(name);
  } catch {
    return undefined;
  }
}

export const keysDir = (home: string): string => join(home, 'keys');

/** The keystore index: the identity of each key file whose name is a hash of it. */
interface KeystoreIndex {
  version: 1;
  identities: Record<string, string>;
}

function openIndex(home: string) {
  const path = join(keysDir(home), 'index.json');
  return openJsonDocument<KeystoreIndex>(
    path,
    (text) => {
      let index: Partial<KeystoreIndex> | undefined;
      try {
        index = JSON.parse(text) as Partial<KeystoreIndex>;
      } catch {
        index = undefined;
      }
      if (index?.version !== 1 || typeof index.identities !== 'object' || !index.identities)
        throw new CardsError('CONFIG_INVALID', `The keystore index ${path} cannot be read.`, {
          hint: 'move it aside: keys whose identity is short are listed without it',
        });
      return index as KeystoreIndex;
    },
    { version: 1, identities: {} },
  );
}
export const keyFile = (home: string, identity: string): string =>
  join(keysDir(home), `${encodeIdentity(identity)}.pem`);

export function ensureKeysDir(home: string): string {
  const dir = keysDir(home);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  return dir;
}

/** The stored key of `identity`, or undefined when there is none. */
export function loadKey(home: string, identity: string): CardPrivateKey | undefined {
  const path = keyFile(home, identity);
  try {
    return readPrivateKeyFile(path).key;
  } catch (err) {
    if (err instanceof CardsError && err.code === 'FILE_NOT_FOUND') return undefined;
    // Not Ed25519: a P-256 or RSA key of the stock formats. A file that is neither
    // keeps the error that names it (an empty or torn file included).
    if (err instanceof CardsError && err.code === 'KEY_FORMAT') {
      try {
        return parseCardPrivateKey(readFileSync(path, 'utf8'));
      } catch {
        throw err;
      }
    }
    throw err;
  }
}

/** Like loadKey, but a missing key is an error with the command that makes one. */
export function requireKey(home: string, identity: string): CardPrivateKey {
  const key = loadKey(home, identity);
  if (key) return key;
  throw new CardsError(
    'FILE_NOT_FOUND',
    `No key for "${identity}" in the keystore (${keysDir(home)}).`,
    {
      hint: `run \`cards keygen --identity ${shellQuote(identity)}\` first, or pass --key FILE`,
    },
  );
}

/** Writes a key file (0600, fsync'ed); refuses an existing file unless `force`. */
export function writeKeyFile(path: string, key: PemKey, force: boolean): void {
  if (!force) {
    try {
      createFileSync(path, key.toPem(), 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
        throw new CardsError('FILE_EXISTS', `${path} exists already.`, {
          hint: 'pass --force to replace it (the old key is lost)',
        });
      }
      throw err;
    }
    return;
  }
  replaceFileSync(path, key.toPem(), 0o600);
}

/** Stores the key of `identity`; returns the file. */
export function storeKey(home: string, identity: string, key: PemKey, force: boolean): string {
  ensureKeysDir(home);
  const path = keyFile(home, identity);
  // The index first: a key is never stored under a name nothing maps back to its identity.
  const name = encodeIdentity(identity);
  if (name.startsWith('='))
    openIndex(home).update(({ identities }) => (identities[name] = identity));
  writeKeyFile(path, key, force);
  return path;
}

/** Removes the key of `identity`; returns whether there was one. */
export function removeKey(home: string, identity: string): boolean {
  const path = keyFile(home, identity);
  const existed = existsSync(path);
  rmSync(path, { force: true });
  const name = encodeIdentity(identity);
  if (name.startsWith('=')) {
    openIndex(home).update(({ identities }) => delete identities[name]);
    rmSync(path.replace(/\.pem$/, '.identity'), { force: true });
  }
  return existed;
}

interface StoredKey {
  readonly identity: string;
  readonly file: string;
}

export function listKeys(home: string): StoredKey[] {
  let names: string[];
  try {
    names = readdirSync(keysDir(home));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const keys: StoredKey[] = [];
  let index: Record<string, string> | undefined;
  for (const name of names.filter((n) => n.endsWith('.pem')).sort()) {
    const stem = name.slice(0, -'.pem'.length);
    const file = join(keysDir(home), name);
    index ??= stem.startsWith('=') ? openIndex(home).data.identities : undefined;
    const identity = decodeIdentity(stem) ?? index?.[stem] ?? sidecarIdentity(home, stem);
    if (identity !== undefined) keys.push({ identity, file });
  }
  return keys;
}

/** A keystore written before the index kept a long identity in `<hash>.identity` beside its key. */
function sidecarIdentity(home: string, stem: string): string | undefined {
  try {
    return readFileSync(join(keysDir(home), `${stem}.identity`), 'utf8');
  } catch {
    return undefined;
  }
}
