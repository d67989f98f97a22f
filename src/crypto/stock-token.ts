/**
 * The stock client's token format (docs/http.md "Cryptography"): a JWT-shaped token with alg
 * VEDS512, cty `virgil-jwt;v=1`, iss `virgil-<app id>`, sub `identity-<identity>`, and as signature
 * the DER-wrapped Ed25519 of SHA-512 over `<header>.<claims>` exactly as received.
 */
import { CardsError } from '../core/errors.js';
import { isObject } from '../core/json.js';
import { decodeBase64Url, decodeUtf8, encodeBase64Url, utf8 } from '../core/encoding.js';
import { signParts, verifyParts } from './ed25519.js';
import type { PrivateKey } from './keys.js';
import { checkAppText, checkIdentityText } from './token-identity.js';
import { checkTokenTimes, tokenLeeways } from './token-times.js';
import {
  compactInput,
  keysFor,
  type VerifiedToken,
  type VerifyTokenOptions,
} from './token-types.js';

export const STOCK_ALG = 'VEDS512';
export const STOCK_CTY = 'virgil-jwt;v=1';
const ISSUER_PREFIX = 'virgil-';
const SUBJECT_PREFIX = 'identity-';

export interface StockTokenClaims {
  iss: string;
  sub: string;
  iat: number;
  exp: number;
  ada?: unknown;
}

export function mintStockToken(options: {
  key: PrivateKey;
  identity: string;
  appId: string;
  kid: string;
  iat: number;
  exp: number;
}): string {
  const header = { alg: STOCK_ALG, kid: options.kid, typ: 'JWT', cty: STOCK_CTY };
  const claims = {
    iss: ISSUER_PREFIX + options.appId,
    sub: SUBJECT_PREFIX + options.identity,
    iat: options.iat,
    exp: options.exp,
  };
  const signingInput = compactInput(header, claims);
  return `${signingInput}.${encodeBase64Url(signParts(options.key, utf8(signingInput)))}`;
}

function decodeSegment(segment: string): Record<string, unknown> {
  const bytes = decodeBase64Url(segment);
  const text = bytes && decodeUtf8(bytes);
  try {
    const value: unknown = text === undefined ? undefined : JSON.parse(text);
    if (isObject(value)) return value;
  } catch {
    // fall through
  }
  throw new CardsError('TOKEN_MALFORMED', 'Token is malformed: a segment is not base64url JSON.');
}

export function verifyStockToken(token: string, options: VerifyTokenOptions): VerifiedToken {
  const parts = token.split('.');
  if (parts.length !== 3) throw new CardsError('TOKEN_MALFORMED');
  const [headerPart = '', claimsPart = '', signaturePart = ''] = parts;
  const header = decodeSegment(headerPart);
  const claims = decodeSegment(claimsPart);
  if (header.alg !== STOCK_ALG) throw new CardsError('TOKEN_ALGORITHM');
  if (header.cty !== STOCK_CTY)
    throw new CardsError('TOKEN_MALFORMED', `Token content type must be "${STOCK_CTY}".`);
  if (options.appKeyId !== undefined && header.kid !== options.appKeyId)
    throw new CardsError('TOKEN_SIGNATURE', 'Token key id is not the trusted app key id.');

  const signature = decodeBase64Url(signaturePart);
  if (!signature) throw new CardsError('TOKEN_MALFORMED', 'Token signature is not base64url.');
  const signingInput = utf8(`${headerPart}.${claimsPart}`);
  const candidates = keysFor(options.keys, header.kid);
  let verified = false;
  for (const { key } of candidates) {
    try {
      verified = verifyParts(key, signature, signingInput);
    } catch {
      throw new CardsError(
        'TOKEN_SIGNATURE',
        'Token signature is not the 83-byte DER-wrapped Ed25519 signature.',
      );
    }
    if (verified) break;
  }
  if (!verified) throw new CardsError('TOKEN_SIGNATURE');

  const { iss, sub } = claims;
  if (typeof iss !== 'string' || !iss.startsWith(ISSUER_PREFIX))
    throw new CardsError('TOKEN_CLAIMS', `Token "iss" must start with "${ISSUER_PREFIX}".`);
  checkAppText(iss);
  if (options.appId !== undefined && iss !== ISSUER_PREFIX + options.appId)
    throw new CardsError('TOKEN_CLAIMS', 'Token "iss" names another app.');
  if (
    typeof sub !== 'string' ||
    !sub.startsWith(SUBJECT_PREFIX) ||
    sub.length === SUBJECT_PREFIX.length
  ) {
    throw new CardsError('TOKEN_CLAIMS', `Token "sub" must be "${SUBJECT_PREFIX}<identity>".`);
  }
  // The stock client's rule is `exp < now` = expired; the deployed service allows no leeway.
  checkTokenTimes(claims, options.now / 1000, tokenLeeways(options.clockSkewSeconds));
  checkIdentityText(sub);
  return {
    identity: sub.slice(SUBJECT_PREFIX.length),
    app: iss.slice(ISSUER_PREFIX.length),
    expiresAt: claims.exp as number,
    format: 'stock',
  };
}
