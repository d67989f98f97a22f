/**
 * The admin token: `Authorization: Bearer <admin token>` on the admin routes, compared
 * in constant time. A card token there is refused (401), and the admin token on a card route
 * (checked in card-routes.ts through `isAdminToken`).
 *
 * On a server listening on loopback only, a request without Authorization is let in (the page
 * opens without a token), but only when it cannot come from elsewhere through the browser: its
 * Host must be a loopback name (no DNS rebinding) and an Origin, when sent, the server's own
 * (no other site's page calling the admin API with a visitor's browser).
 */
import { timingSafeEqual } from 'node:crypto';
import { CardsError } from '../core/errors.js';
import { isLoopbackHostHeader } from './loopback.js';

export interface AdminAuthOptions {
  readonly token: string;
  /** The server listens on loopback addresses only: requests without a token are let in. */
  readonly loopbackOpen: boolean;
  /** The card routes' scheme word (Service, Virgil), to name what was sent. */
  readonly cardScheme: string;
}

export interface AdminGuard {
  readonly loopbackOpen: boolean;
  /**
   * Throws a 401 CardsError unless the request may use the admin API; else who it is, for the
   * request journal: `admin` (the token) or `loopback` (let in without one).
   */
  admit(headers: {
    authorization?: string | undefined;
    host?: string | undefined;
    origin?: string | undefined;
  }): 'admin' | 'loopback';
  /** The header carries the admin token (under any scheme word). */
  isAdminToken(header: string): boolean;
}

export function createAdminGuard(options: AdminAuthOptions): AdminGuard {
  // Compared in constant time for the token's length (only whether the length is right can be
  // timed, as with Go's subtle.ConstantTimeCompare): a SHA-256 of each token sent, to hide the
  // length too, cost an admin read about a tenth of its time.
  const expected = Buffer.from(options.token);
  const matches = (token: string): boolean => {
    const sent = Buffer.from(token);
    const sameLength = sent.byteLength === expected.byteLength;
    return timingSafeEqual(sameLength ? sent : expected, expected) && sameLength;
  };
  const tokenOf = (header: string): { scheme: string; token: string } => {
    const space = header.indexOf(' ');
    return space < 0
      ? { scheme: header, token: '' }
      : { scheme: header.slice(0, space), token: header.slice(space + 1).trim() };
  };
  return {
    loopbackOpen: options.loopbackOpen,
    admit({ authorization, host, origin }) {
      if (authorization === undefined || authorization.trim() === '') {
        if (
          options.loopbackOpen &&
          host !== undefined &&
          isLoopbackHostHeader(host) &&
          (origin === undefined || origin === `http://${host}`)
        )
          return 'loopback';
        throw new CardsError('ADMIN_AUTH_MISSING');
      }
      const { scheme, token } = tokenOf(authorization);
      if (scheme.toLowerCase() === 'bearer' && matches(token)) return 'admin';
      if (scheme.toLowerCase() === options.cardScheme.toLowerCase())
        throw new CardsError(
          'ADMIN_TOKEN_INVALID',
          `Admin token is not valid: a card token (${options.cardScheme}) does not authorize admin routes; send Authorization: Bearer <admin token>.`,
        );
      throw new CardsError(
        'ADMIN_TOKEN_INVALID',
        scheme.toLowerCase() === 'bearer'
          ? 'Admin token is not valid: it is not this server’s admin token (see the banner of cards serve).'
          : 'Admin token is not valid: send Authorization: Bearer <admin token>.',
      );
    },
    isAdminToken(header) {
      const { token } = tokenOf(header);
      return token !== '' && matches(token);
    },
  };
}

/** A new admin token: 32 random bytes, base64url, with a prefix that says what it is. */
export function generateAdminToken(randomBytes: Uint8Array): string {
  return `cards_admin_${Buffer.from(randomBytes).toString('base64url')}`;
}
