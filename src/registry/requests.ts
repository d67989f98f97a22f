/**
 * Reading request bodies the way the deployed service does, where the core parsers leave a gap:
 * the search query (40200, 40300) and the position of the token-identity check (40034), which
 * wire-facts section 4 places right after the snapshot's own identity checks, before the
 * previous id, created_at and version. Pure.
 */
import { CardsError, type ErrorCode } from '../core/errors.js';
import { decodeBase64, decodeUtf8, utf8Length } from '../core/encoding.js';
import { LIMITS } from '../core/limits.js';
import { decodeSnapshot, type Snapshot, type SnapshotPurpose } from '../core/snapshot.js';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The identities of a search body: `{"identities": [...]}` (1-50 strings) or
 * `{"identity": "..."}`; `identities` wins when both are given. Repeats are dropped, the order
 * asked is kept. Identities are matched exactly (bytes), never by prefix or case.
 */
export function parseSearchQuery(body: unknown): string[] {
  if (!isObject(body))
    throw new CardsError('BODY_PARSE', 'Search body must be a JSON object with "identities".');
  const { identities, identity } = body;
  if (identities !== undefined && identities !== null) {
    if (!Array.isArray(identities) || identities.some((item) => typeof item !== 'string'))
      throw new CardsError('BODY_PARSE', '"identities" must be an array of strings.');
    if (identities.length === 0) throw new CardsError('SEARCH_EMPTY');
    if (identities.length > LIMITS.searchIdentitiesMax)
      throw new CardsError(
        'SEARCH_TOO_MANY',
        `Identities to search amount limited to ${LIMITS.searchIdentitiesMax} (got ${identities.length}).`,
      );
    return [...new Set(identities as string[])];
  }
  if (identity !== undefined && identity !== null) {
    if (typeof identity !== 'string')
      throw new CardsError('BODY_PARSE', '"identity" must be a string.');
    if (identity === '') throw new CardsError('SEARCH_EMPTY');
    return [identity];
  }
  throw new CardsError('SEARCH_EMPTY');
}

/** Codes the snapshot parser raises for fields it reads after the identity. */
const AFTER_IDENTITY = new Set<ErrorCode>([
  'PREVIOUS_ID_INVALID',
  'REVOKE_PREVIOUS_MISSING',
  'CREATED_AT_INVALID',
  'VERSION_INVALID',
  'BODY_PARSE',
]);

/**
 * Decodes a content snapshot for a caller whose token carries `callerIdentity`, refusing a
 * snapshot of another identity with 40034 at the deployed service's position in the order.
 */
export function decodeSnapshotFor(
  contentSnapshot: string,
  purpose: SnapshotPurpose,
  callerIdentity: string,
): Snapshot {
  let snapshot: Snapshot;
  try {
    snapshot = decodeSnapshot(contentSnapshot, purpose);
  } catch (err) {
    if (err instanceof CardsError && AFTER_IDENTITY.has(err.code)) {
      const identity = validIdentityOf(contentSnapshot);
      if (identity !== undefined && identity !== callerIdentity) throw identityMismatch();
    }
    throw err;
  }
  if (snapshot.identity !== callerIdentity) throw identityMismatch();
  return snapshot;
}

const identityMismatch = (): CardsError =>
  new CardsError(
    'IDENTITY_MISMATCH',
    "Identity is incorrect. It must match request identity provided in JWT (the snapshot's identity is not the token's).",
  );

/**
 * The identity of a snapshot whose fields up to and including the identity are valid (so a
 * later field failed), or undefined when an earlier field is what failed.
 */
function validIdentityOf(contentSnapshot: string): string | undefined {
  const bytes = decodeBase64(contentSnapshot);
  const text = bytes && decodeUtf8(bytes);
  if (text === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(json)) return undefined;
  const { public_key: publicKey, identity } = json;
  if (publicKey !== undefined && publicKey !== null && typeof publicKey !== 'string')
    return undefined;
  if (typeof identity !== 'string' || identity === '') return undefined;
  if (utf8Length(identity) > LIMITS.identityMax) return undefined;
  return identity;
}
