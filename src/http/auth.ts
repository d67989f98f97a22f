/**
 * The Authorization header (spec 5): `<scheme> <token>`, the scheme word the profile's,
 * compared case-insensitively; the token checked by crypto/tokens.ts (EdDSA JWT or the stock
 * VEDS512 format). A verified token is remembered by its exact text until its `exp`, in a
 * bounded map, since verifying costs far more than serving a card.
 */
import { CardsError } from '../core/errors.js';
import { tokenLeeways, verifyToken, type TrustedKey } from '../crypto/tokens.js';
import { readUnverifiedToken } from '../crypto/unverified-token.js';
import { isLoopbackHostHeader, isLoopbackOrigin } from './loopback.js';

export interface AuthenticatorOptions {
  readonly keys: readonly TrustedKey[];
  /** The profile's scheme word (`Service`, `Virgil`). */
  readonly scheme: string;
  /** Milliseconds since the epoch. */
  readonly clock?: () => number;
  /** Stock tokens: `iss` must be `virgil-<appId>`. */
  readonly appId?: string;
  /** Stock tokens: `kid` must be this. */
  readonly appKeyId?: string;
  /** Extra clock skew allowed on token times, in seconds (`cards serve --clock-skew`). */
  readonly clockSkewSeconds?: number;
  /**
   * Any well-formed token stands for its `sub`, its signature unchecked (`cards serve
   * --accept-any-token`, loopback only); its times are still checked.
   */
  readonly acceptAnyToken?: boolean;
  /** Verified tokens remembered at most (oldest forgotten first). Default 10,000. */
  readonly cacheSize?: number;
}

/** Where a request says it comes from: its Host and Origin headers. */
export interface RequestSource {
  readonly host?: string | undefined;
  readonly origin?: string | undefined;
}

export interface Authenticator {
  /** The identity the header's token carries; throws a 401 CardsError otherwise. */
  authenticate(header: string | undefined, source: RequestSource): Promise<string>;
  /** The identity and the app ('' when the token names none) the header's token carries. */
  caller(header: string | undefined, source: RequestSource): Promise<Caller>;
}

/**
 * With --accept-any-token a token proves nothing, so it is taken only from this machine: a
 * loopback Host (a DNS-rebinding page sends its own name) and no Origin but a loopback page's
 * (the card routes answer CORS `*`, so without this any site a developer visits could read and
 * write that server's cards and Keyknox entries with a token it made up).
 */
function checkLocal(source: RequestSource): void {
  if (!isLoopbackHostHeader(source.host))
    throw new CardsError(
      'TOKEN_NOT_LOCAL',
      `--accept-any-token takes tokens only from this machine: Host "${String(source.host)}" is not a loopback name.`,
    );
  if (source.origin !== undefined && !isLoopbackOrigin(source.origin))
    throw new CardsError(
      'TOKEN_NOT_LOCAL',
      `--accept-any-token takes tokens only from pages served by this machine, not from ${source.origin}.`,
    );
}

export interface Caller {
  readonly identity: string;
  readonly app: string;
}

interface Remembered extends Caller {
  /** Milliseconds since the epoch after which the token must be checked again. */
  readonly until: number;
}

export function createAuthenticator(options: AuthenticatorOptions): Authenticator {
  const clock = options.clock ?? Date.now;
  const cacheSize = options.cacheSize ?? 10_000;
  const cache = new Map<string, Remembered>();
  const scheme = options.scheme.toLowerCase();
  const verifyOptions = {
    keys: options.keys,
    ...(options.appId !== undefined && { appId: options.appId }),
    ...(options.appKeyId !== undefined && { appKeyId: options.appKeyId }),
    ...(options.clockSkewSeconds !== undefined && { clockSkewSeconds: options.clockSkewSeconds }),
  };
  // A remembered token is served until exactly when verifying it again would say 20304.
  const expiryLeewayMs = tokenLeeways(options.clockSkewSeconds).expiry * 1000;

  const caller = async (header: string | undefined, source: RequestSource): Promise<Caller> => {
    if (header === undefined || header.trim() === '') throw new CardsError('AUTH_MISSING');
    if (options.acceptAnyToken) checkLocal(source);
    const space = header.indexOf(' ');
    const word = space < 0 ? header : header.slice(0, space);
    if (word.toLowerCase() !== scheme)
      throw new CardsError(
        'AUTH_SCHEME',
        `Authorization scheme must be "${options.scheme}" (as in "Authorization: ${options.scheme} <token>").`,
      );
    const token = space < 0 ? '' : header.slice(space + 1).trim();
    const now = clock();
    const known = cache.get(token);
    if (known !== undefined) {
      if (now < known.until) return known;
      cache.delete(token);
    }
    const verified = options.acceptAnyToken
      ? readUnverifiedToken(token, { ...verifyOptions, now })
      : await verifyToken(token, { ...verifyOptions, now });
    if (cache.size >= cacheSize) cache.delete(cache.keys().next().value as string);
    const remembered = {
      identity: verified.identity,
      app: ('app' in verified && verified.app) || '',
      until: verified.expiresAt * 1000 + expiryLeewayMs,
    };
    cache.set(token, remembered);
    return remembered;
  };
  return {
    authenticate: async (header, source) => (await caller(header, source)).identity,
    caller,
  };
}
