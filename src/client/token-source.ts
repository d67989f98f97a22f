/**
 * Where the client's tokens come from (spec 5): a fixed token given by the user, or tokens
 * minted on demand for the request's identity from an app key. A minted token is kept and
 * reused for its identity until it is close to expiry, so a thousand requests cost one
 * signature per identity. Never reads files or the environment: keys arrive built.
 */
import type { PrivateKey } from '../crypto/keys.js';
import { mintToken, type TokenFormat } from '../crypto/tokens.js';

export interface TokenSource {
  /** A token whose identity is `identity` (a fixed token ignores it). */
  tokenFor(identity: string): Promise<string>;
  /** Whether the tokens carry the identity asked for (false for a fixed token). */
  readonly mints: boolean;
  /**
   * Where the tokens come from, as a clause after "the token sent" ("came from --token", "was
   * minted with the app key FILE …"), named when a server refuses one.
   */
  readonly from?: string;
}

export function fixedToken(token: string, from?: string): TokenSource {
  return { tokenFor: () => Promise.resolve(token), mints: false, ...(from && { from }) };
}

export interface MintingOptions {
  readonly key: PrivateKey;
  /**
   * `stock` for the vendor's VEDS512 tokens (docs/http.md "Cryptography"); `jwt` for EdDSA JWTs.
   */
  readonly format: TokenFormat;
  readonly ttlSeconds: number;
  /** Milliseconds since the epoch. */
  readonly now: () => number;
  readonly kid?: string;
  readonly appId?: string;
  /** As TokenSource's `from`. */
  readonly from?: string;
}

/** Re-mint when less than this many seconds of a token's life are left. */
const REFRESH_MARGIN_SECONDS = 60;

export function mintingTokens(options: MintingOptions): TokenSource {
  const cache = new Map<string, { token: Promise<string>; expiresAt: number }>();
  return {
    mints: true,
    ...(options.from && { from: options.from }),
    tokenFor(identity: string): Promise<string> {
      const now = options.now();
      const hit = cache.get(identity);
      if (hit && hit.expiresAt - REFRESH_MARGIN_SECONDS > now / 1000) return hit.token;
      const token = Promise.resolve(
        mintToken({
          key: options.key,
          identity,
          now,
          ttlSeconds: options.ttlSeconds,
          format: options.format,
          ...(options.kid === undefined ? {} : { kid: options.kid }),
          ...(options.appId === undefined ? {} : { appId: options.appId }),
        }),
      );
      cache.set(identity, { token, expiresAt: Math.floor(now / 1000) + options.ttlSeconds });
      return token;
    },
  };
}
