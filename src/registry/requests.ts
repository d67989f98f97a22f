/**
 * Reading request bodies the way the deployed service does, where the core parsers leave a gap:
 * the search query (40200, 40300, and 40091 for an identity no card can have). Pure.
 */
import { isPortableText } from '../core/encoding.js';
import { CardsError } from '../core/errors.js';
import { isObject } from '../core/json.js';
import { LIMITS } from '../core/limits.js';

/** A request body that must be a JSON object: BODY_PARSE naming `what` when it is not. */
export function bodyObject(body: unknown, what: string): Record<string, unknown> {
  if (!isObject(body)) throw new CardsError('BODY_PARSE', `${what} body must be a JSON object.`);
  return body;
}

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
    return [...new Set((identities as string[]).map(searchable))];
  }
  if (identity !== undefined && identity !== null) {
    if (typeof identity !== 'string')
      throw new CardsError('BODY_PARSE', '"identity" must be a string.');
    if (identity === '') throw new CardsError('SEARCH_EMPTY');
    return [searchable(identity)];
  }
  throw new CardsError('SEARCH_EMPTY');
}

/**
 * An identity a search may ask for: one a card can have (docs/http.md, "Text"). A lone
 * surrogate is refused rather than matched, since an engine storing text as UTF-8 would read
 * it as U+FFFD and answer with the cards of another identity.
 */
function searchable(identity: string): string {
  if (isPortableText(identity)) return identity;
  throw new CardsError(
    'TEXT_NOT_UNICODE',
    'Text is incorrect. It must be well-formed Unicode without U+0000: a searched identity is not.',
  );
}
