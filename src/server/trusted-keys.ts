/**
 * The token keys a server is told to trust (`--jwt-key`, CARDS_JWT_KEY): each a file (PEM SPKI,
 * base64 DER SPKI, a JWK or a JWKS) or an inline base64 DER SPKI; a value that is neither may
 * be a comma-separated list (how CARDS_JWT_KEY carries several). A JWK's `kid` is kept; keys in
 * a JWKS that are not Ed25519 are skipped.
 */
import { readFile, stat } from 'node:fs/promises';
import { CardsError } from '../core/errors.js';
import { parsePublicKey } from '../crypto/keys.js';
import type { TrustedKey } from '../crypto/tokens.js';
import { inFile } from '../io/key-files.js';

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
    } catch (err) {
      // A well-formed key refused for what it is (a small-order point) says so.
      if (err instanceof CardsError && /small-order|non-canonical/.test(err.message))
        throw new CardsError('KEY_FORMAT', `--jwt-key ${value}: ${err.message}`);
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
    throw inFile(value, err);
  }
}
