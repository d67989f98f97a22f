/**
 * What both token formats share (spec 5): the keys a verifier trusts, the ones a token's kid
 * selects, and what a verified token tells. Kept apart from tokens.ts and stock-token.ts so that each can name them without
 * importing the other (tokens.ts dispatches to stock-token.ts, never the other way round).
 */
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
