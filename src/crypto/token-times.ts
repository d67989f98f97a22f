/**
 * The time rules both token formats share (spec 5; docs/http.md "Cryptography"): `exp` with no
 * leeway by default, as the deployed service, `iat`/`nbf` with 5 s; `cards serve --clock-skew`
 * widens both. Apart from tokens.ts and stock-token.ts so each can use it without importing the
 * other.
 */
import { CardsError } from '../core/errors.js';
import { LIMITS } from '../core/limits.js';

/** The leeways in force: `exp` (default 0 s) and `iat`/`nbf` (default 5 s), in seconds. */
export function tokenLeeways(clockSkewSeconds = 0): { expiry: number; issued: number } {
  return {
    expiry: Math.max(LIMITS.tokenExpiryLeewaySeconds, clockSkewSeconds),
    issued: Math.max(LIMITS.tokenIssuedLeewaySeconds, clockSkewSeconds),
  };
}

/**
 * RFC 7519 4.1.4: expired from `exp` on (no leeway by default, as the deployed service); not
 * valid before `nbf` or an `iat` in the future, with the small `issued` leeway. A time claim of
 * the wrong type is an invalid claim, not "expired" or "not valid yet". Shared by
 * both token formats.
 */
export function checkTokenTimes(
  claims: { exp?: unknown; nbf?: unknown; iat?: unknown },
  nowSeconds: number,
  leeway: { expiry: number; issued: number },
): void {
  const { exp, nbf, iat } = claims;
  if (typeof exp !== 'number' || !Number.isFinite(exp))
    throw new CardsError('TOKEN_CLAIMS', 'Token "exp" is required and must be a number.');
  for (const [name, value] of [
    ['iat', iat],
    ['nbf', nbf],
  ] as const)
    if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value)))
      throw new CardsError('TOKEN_CLAIMS', `Token "${name}" must be a number (seconds).`);
  if (exp + leeway.expiry <= nowSeconds) throw new CardsError('TOKEN_EXPIRED');
  if (typeof iat === 'number' && iat - leeway.issued > nowSeconds)
    throw new CardsError('TOKEN_NOT_YET_VALID');
  if (typeof nbf === 'number' && nbf - leeway.issued > nowSeconds)
    throw new CardsError('TOKEN_NOT_YET_VALID', 'Token is not valid yet ("nbf" is in the future).');
}
