/**
 * What both token formats share (spec 5): the keys a verifier trusts, the ones a token's kid
 * selects, the options of a verification, what a verified token tells, and the signed part of a
 * compact token. Kept apart from tokens.ts and stock-token.ts so that each can name them without
 * importing the other (tokens.ts dispatches to stock-token.ts, never the other way round).
 */
import { encodeBase64Url, utf8 } from '../core/encoding.js';
import type { PublicKey } from './keys.js';

export interface TrustedKey {
  readonly key: PublicKey;
  /** Optional key id; when a token names a kid, only keys with that id are tried. */
  readonly kid?: string;
}

/** The keys to try on a token naming `kid`: those with that id, or all when none has it. */
export const keysFor = (keys: readonly TrustedKey[], kid: unknown): readonly TrustedKey[] =>
  typeof kid === 'string' && keys.some((k) => k.kid === kid)
    ? keys.filter((k) => k.kid === kid)
    : keys;

export interface VerifiedToken {
  readonly identity: string;
  /** The app a stock token names (`iss` minus `virgil-`); '' for an EdDSA JWT, which names none. */
  readonly app?: string;
  /** UNIX seconds. */
  readonly expiresAt: number;
  readonly format: 'jwt' | 'stock';
}

export interface VerifyTokenOptions {
  readonly keys: readonly TrustedKey[];
  /** Milliseconds since the epoch. */
  readonly now: number;
  /** Stock tokens: `iss` must be `virgil-<appId>` when set. */
  readonly appId?: string;
  /** Stock tokens: `kid` must equal this when set. */
  readonly appKeyId?: string;
  /**
   * Extra clock skew allowed, in seconds (`cards serve --clock-skew`): widens the `exp`
   * leeway (default none) and the `iat`/`nbf` one (default 5 s) to at least this.
   */
  readonly clockSkewSeconds?: number;
}

/** The signed part of a compact token: base64url(JSON header) "." base64url(JSON claims). */
export const compactInput = (header: object, claims: object): string =>
  `${encodeBase64Url(utf8(JSON.stringify(header)))}.${encodeBase64Url(utf8(JSON.stringify(claims)))}`;
