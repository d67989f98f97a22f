/**
 * Reading request bodies the way the deployed service does, where the core parsers leave a gap:
 * the search query (40200, 40300) and the snapshot checked against the token's identity
 * (40034). Pure.
 */
import { CardsError } from '../core/errors.js';
import { isObject } from '../core/json.js';
import { LIMITS } from '../core/limits.js';
import { decodeSnapshot, type Snapshot, type SnapshotPurpose } from '../core/snapshot.js';

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
    // An empty identity is refused here as in the "identity" form below, so the two agree.
    if (identities.length === 0 || identities.includes('')) throw new CardsError('SEARCH_EMPTY');
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

/**
 * Decodes a content snapshot for a caller whose token carries `callerIdentity`: a snapshot of
 * another identity is 40034, at the deployed service's position in the order of checks.
 */
export const decodeSnapshotFor = (
  contentSnapshot: string,
  purpose: SnapshotPurpose,
  callerIdentity: string,
): Snapshot => decodeSnapshot(contentSnapshot, purpose, { expectedIdentity: callerIdentity });
