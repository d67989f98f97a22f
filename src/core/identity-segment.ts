/**
 * An identity in one URL path segment (the admin API's `/_cards/identities/{identity}`, the
 * page's links). Any string is carried, and most travel percent-encoded as UTF-8 (RFC 3986
 * section 2.1). Two kinds cannot:
 * - `.` and `..`: URL parsers remove them as dot segments (RFC 3986 section 5.2.4), and a
 *   WHATWG URL parser (every browser's fetch, Node's fetch) also treats `%2E` and `%2E%2E` so;
 * - strings holding a lone surrogate: they have no UTF-8 form, so no percent-encoding (no card
 *   may have such an identity, but a client may ask for one, and a store file may hold one).
 * Those travel as their JSON string (RFC 8259 section 7: `"."`, `"\ud800"`, quotes included)
 * percent-encoded, with `form=json` in the query saying so.
 *
 * Pure and free of imports: the page's own script loads this very module.
 */

/** The query value that says the segment is the identity's JSON string. */
export const JSON_FORM = 'json';

export interface IdentitySegment {
  /** The path segment, percent-encoded. */
  readonly segment: string;
  /** `json` when the segment is the identity's JSON string (send `?form=json`). */
  readonly form?: typeof JSON_FORM;
}

const LONE_SURROGATE = /\p{Surrogate}/u;

/** Whether `identity` has no plain percent-encoded segment (a dot segment, a lone surrogate). */
export const needsJsonForm = (identity: string): boolean =>
  identity === '.' || identity === '..' || LONE_SURROGATE.test(identity);

/** The segment (and form) that carries `identity`. */
export function identitySegment(identity: string): IdentitySegment {
  if (!needsJsonForm(identity)) return { segment: encodeURIComponent(identity) };
  // JSON.stringify writes a lone surrogate as \udXXX (ECMA-262 JSON.stringify, well-formed).
  return { segment: encodeURIComponent(JSON.stringify(identity)), form: JSON_FORM };
}

/**
 * The identity a decoded segment carries, given the `form` of the query (undefined: the
 * segment is the identity); undefined when `form` is unknown or the segment is not a JSON
 * string.
 */
export function identityOfSegment(decoded: string, form: string | undefined): string | undefined {
  if (form === undefined) return decoded;
  if (form !== JSON_FORM) return undefined;
  try {
    const value: unknown = JSON.parse(decoded);
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}
