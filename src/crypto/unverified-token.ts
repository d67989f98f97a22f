/**
 * A token read without checking its signature, for `cards serve --accept-any-token` (a
 * developer's loopback server that mints no keys): any well-formed token of either format (a
 * JWT of three base64url parts with JSON header and claims: EdDSA with the identity in `sub`,
 * or the stock VEDS512 format with `sub` `identity-<identity>`) stands for its `sub`. Its times
 * are still checked (spec 5), so a client's token refresh behaves as against the service. Pure.
 */
import { decodeBase64Url, decodeUtf8 } from '../core/encoding.js';
import { CardsError } from '../core/errors.js';
import { isObject } from '../core/json.js';
import { checkIdentityText } from './token-identity.js';
import { checkTokenTimes, tokenLeeways } from './token-times.js';

const STOCK_SUBJECT = 'identity-';

function part(text: string, what: string): Record<string, unknown> {
  const bytes = /^[A-Za-z0-9_-]+$/.test(text) ? decodeBase64Url(text) : undefined;
  const json = bytes && decodeUtf8(bytes);
  let value: unknown;
  try {
    value = json === undefined ? undefined : JSON.parse(json);
  } catch {
    value = undefined;
  }
  if (!isObject(value))
    throw new CardsError('TOKEN_MALFORMED', `Token ${what} is not base64url JSON.`);
  return value;
}

/** The identity `token` names and when it expires (seconds), its signature unchecked. */
export function readUnverifiedToken(
  token: string,
  options: { now: number; clockSkewSeconds?: number },
): { identity: string; expiresAt: number } {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[2] === '')
    throw new CardsError('TOKEN_MALFORMED', 'Token is not three base64url parts.');
  const header = part(parts[0] as string, 'header');
  const claims = part(parts[1] as string, 'claims');
  const { sub } = claims;
  if (typeof sub !== 'string' || sub === '')
    throw new CardsError('TOKEN_CLAIMS', 'Token "sub" (the identity) is missing.');
  const stock = header.alg === 'VEDS512' && sub.startsWith(STOCK_SUBJECT);
  const identity = stock ? sub.slice(STOCK_SUBJECT.length) : sub;
  if (identity === '') throw new CardsError('TOKEN_CLAIMS', 'Token "sub" names no identity.');
  checkTokenTimes(claims, options.now / 1000, tokenLeeways(options.clockSkewSeconds));
  checkIdentityText(identity);
  return { identity, expiresAt: claims.exp as number };
}
