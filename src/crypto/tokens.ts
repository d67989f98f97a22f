/**
 * Access tokens (spec 5): mint and verify.
 *
 * Two formats are accepted, told apart by the header's `alg`, which is pinned:
 * - `EdDSA` JWTs (jose), identity in `sub`: what `cards jwt` mints by default.
 * - `VEDS512` tokens as the stock client makes them (docs/http.md "Cryptography"), in
 *   stock-token.ts.
 * Anything else (`none`, HS256 with a public key as secret, RS256, …) is refused before any key
 * is touched. `exp` is required; the current time is always passed in. jose's errors become
 * CardsErrors here and nowhere else: no library message reaches a response or a user.
 */
import { sign } from 'node:crypto';
import { encodeBase64Url, utf8 } from '../core/encoding.js';
import { CardsError } from '../core/errors.js';
import type { PrivateKey } from './keys.js';
import { mintStockToken, verifyStockToken, STOCK_ALG } from './stock-token.js';
import { checkIdentityText } from './token-identity.js';
import { checkTokenTimes, tokenLeeways } from './token-times.js';
import {
  compactInput,
  keysFor,
  type VerifiedToken,
  type VerifyTokenOptions,
} from './token-types.js';

export type { TrustedKey, VerifiedToken, VerifyTokenOptions } from './token-types.js';
export { tokenLeeways } from './token-times.js';

/**
 * jose's own entry points for the three parts used (the package's root loads all of it), loaded
 * by the first token verified: a server starts, and a client mints, without them (their modules
 * cost ~40 ms of CPU to load).
 */
const loadJose = async () => {
  const [header, errors, verify] = await Promise.all([
    import('jose/decode/protected_header'),
    import('jose/errors'),
    import('jose/jwt/verify'),
  ]);
  return {
    decodeProtectedHeader: header.decodeProtectedHeader,
    errors,
    jwtVerify: verify.jwtVerify,
  };
};
type Jose = Awaited<ReturnType<typeof loadJose>>;
let jose: Jose | undefined;
let loadingJose: Promise<Jose> | undefined;

export type TokenFormat = 'jwt' | 'stock';

export interface MintTokenOptions {
  readonly key: PrivateKey;
  readonly identity: string;
  /** Milliseconds since the epoch. */
  readonly now: number;
  readonly ttlSeconds: number;
  readonly format?: TokenFormat;
  readonly kid?: string;
  /** Stock tokens: the app id put into `iss`. */
  readonly appId?: string;
}

/**
 * Mints a token for `identity`: an EdDSA JWT (`sub`, `iat`, `exp`, optional `kid`) or, with
 * `format: 'stock'`, the vendor's VEDS512 token. The JWT is signed with node:crypto directly
 * and synchronously rather than through jose: jose signs through WebCrypto, whose per-call job
 * costs ~0.5 ms, which adds up when a client mints a token for each of thousands of identities
 * (`cards seed`). The result is byte-identical to jose's SignJWT (Ed25519 is deterministic; the
 * tests compare the two), and verification still goes through jose.
 */
export function mintToken(options: MintTokenOptions): string {
  const iat = Math.floor(options.now / 1000);
  if (options.format === 'stock') {
    return mintStockToken({
      ...options,
      iat,
      exp: iat + options.ttlSeconds,
      appId: options.appId ?? '',
      kid: options.kid ?? '',
    });
  }
  const header = options.kid
    ? { alg: 'EdDSA', typ: 'JWT', kid: options.kid }
    : { alg: 'EdDSA', typ: 'JWT' };
  const claims = { sub: options.identity, iat, exp: iat + options.ttlSeconds };
  const input = compactInput(header, claims);
  return `${input}.${encodeBase64Url(new Uint8Array(sign(null, utf8(input), options.key.keyObject)))}`;
}

export async function verifyToken(
  token: string,
  options: VerifyTokenOptions,
): Promise<VerifiedToken> {
  if (token === '') throw new CardsError('TOKEN_MALFORMED', 'Token is empty.');
  const { decodeProtectedHeader, errors, jwtVerify } = (jose ??= await (loadingJose ??=
    loadJose()));
  let alg: unknown;
  let kid: unknown;
  try {
    ({ alg, kid } = decodeProtectedHeader(token));
  } catch {
    throw new CardsError(
      'TOKEN_MALFORMED',
      'Token is malformed: expected three base64url segments with a JSON header.',
    );
  }
  if (alg === STOCK_ALG) return verifyStockToken(token, options);
  if (alg !== 'EdDSA' && alg !== 'Ed25519') {
    throw new CardsError(
      'TOKEN_ALGORITHM',
      `Token algorithm ${JSON.stringify(alg)} is not allowed; use EdDSA (Ed25519) or VEDS512.`,
    );
  }
  const candidates = keysFor(options.keys, kid);
  const leeway = tokenLeeways(options.clockSkewSeconds);
  const nowSeconds = options.now / 1000;
  let lastError: unknown = new CardsError('TOKEN_SIGNATURE', 'No trusted token key is configured.');
  for (const { key } of candidates) {
    try {
      const { payload } = await jwtVerify(token, key.keyObject, {
        algorithms: ['EdDSA', 'Ed25519'],
        currentDate: new Date(options.now),
        // exp, nbf and iat are checked below, each with its own leeway (jose has one for all).
        clockTolerance: Number.MAX_SAFE_INTEGER,
        requiredClaims: ['exp', 'sub'],
      });
      if (typeof payload.sub !== 'string' || payload.sub === '')
        throw new CardsError(
          'TOKEN_CLAIMS',
          'Token "sub" (the identity) must be a non-empty string.',
        );
      checkTokenTimes(payload, nowSeconds, leeway);
      checkIdentityText(payload.sub);
      return { identity: payload.sub, expiresAt: payload.exp as number, format: 'jwt' };
    } catch (err) {
      lastError = err;
      if (!(err instanceof errors.JWSSignatureVerificationFailed)) break;
    }
  }
  throw translateJoseError(lastError, errors);
}

function translateJoseError(err: unknown, joseErrors: Jose['errors']): CardsError {
  if (err instanceof CardsError) return err;
  if (err instanceof joseErrors.JWTExpired) return new CardsError('TOKEN_EXPIRED');
  if (err instanceof joseErrors.JWTClaimValidationFailed) {
    // A claim of the wrong type ("iat": "yesterday") is invalid, not "not valid yet".
    if ((err.claim === 'nbf' || err.claim === 'iat') && err.reason !== 'invalid')
      return new CardsError(
        'TOKEN_NOT_YET_VALID',
        `Token is not valid yet ("${err.claim}" is in the future).`,
      );
    return new CardsError('TOKEN_CLAIMS', `Token claim "${err.claim}" is missing or invalid.`);
  }
  if (err instanceof joseErrors.JWSSignatureVerificationFailed)
    return new CardsError('TOKEN_SIGNATURE');
  if (err instanceof joseErrors.JOSEAlgNotAllowed) return new CardsError('TOKEN_ALGORITHM');
  if (err instanceof joseErrors.JOSEError)
    return new CardsError('TOKEN_MALFORMED', 'Token is malformed.');
  return new CardsError('TOKEN_MALFORMED', 'Token is malformed.', { cause: err });
}
