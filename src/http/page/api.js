// The admin API as the page reads it: its own origin, the admin token from this tab's
// sessionStorage when the server wants one, identities in paths as core/identity-segment.js
// writes them (the CLI's rule: `.`, `..` and lone surrogates as their JSON string).
import { identityOfSegment, identitySegment } from './core/identity-segment.js';

const TOKEN_KEY = 'cards-admin-token';

export class Unauthorized extends Error {}

export const savedToken = () => sessionStorage.getItem(TOKEN_KEY);
export const saveToken = (token) => sessionStorage.setItem(TOKEN_KEY, token);

/** GET `path` of this server as JSON; an Error object answer throws its code and message. */
export async function api(path) {
  const token = savedToken();
  const response = await fetch(
    path,
    token ? { headers: { authorization: `Bearer ${token}` } } : {},
  );
  if (response.status === 401) throw new Unauthorized();
  const body = await response.json();
  if (!response.ok) throw new Error(`${body.code}: ${body.message}`);
  return body;
}

/** `segment` and `?form=…` of an identity, for a path or a location hash. */
export function identityRef(identity) {
  const { segment, form } = identitySegment(identity);
  return { segment, query: form ? `?${new URLSearchParams({ form })}` : '' };
}

/** The admin API's history of `identity`. */
export function history(identity) {
  const { segment, query } = identityRef(identity);
  return api(`/_cards/identities/${segment}${query}`);
}

/**
 * A location hash's segment percent-decoded, or undefined for one no URL could carry (a percent
 * sign without two hex digits, bytes that are no UTF-8: decodeURIComponent's URIError).
 */
export function decodeSegment(segment) {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** The identity a location hash names by `segment` (percent-encoded) and its query. */
export function identityOfHash(segment, query) {
  const decoded = decodeSegment(segment);
  const identity =
    decoded === undefined ? undefined : identityOfSegment(decoded, query.get('form') ?? undefined);
  if (identity === undefined) throw new Error('This link names no identity.');
  return identity;
}
