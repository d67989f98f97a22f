/**
 * The query string of GET /_cards/requests: `limit` (or `all=true`: every entry the journal
 * keeps), and the filters `route` (a route's name or a unique prefix), `status` (`201` or a
 * class, `4xx`), `identity`, `since` (an ISO 8601 time) and `after` (a seq: what a follower saw
 * last). Each parameter's shape is checked by its schema first; what a pattern cannot say is
 * QUERY_INVALID here.
 */
import { CardsError } from '../core/errors.js';
import { lookUpRoute } from '../core/route-name.js';
import type { JournalFilter } from './request-journal.js';

type Query = Readonly<Record<string, string | undefined>>;

/** The filters' parameters, for the route's schema: name → [description, pattern]. */
export const JOURNAL_FILTERS = {
  route: ["a route's name (createCard) or a unique prefix (create)", '^[A-Za-z0-9]{1,64}$'],
  status: ['an HTTP status (201) or its class (4xx)', '^([0-5]\\d\\d|[1-5]xx)$'],
  identity: ['an identity', undefined],
  since: [
    'an ISO 8601 time (2026-01-02T03:04:05Z)',
    '^\\d{4}-\\d\\d-\\d\\dT[\\d:.]+(Z|[+-]\\d\\d:\\d\\d)$',
  ],
  after: ['a seq of an earlier answer', '^\\d{1,15}$'],
  all: ['true or false', '^(true|false)$'],
} as const;

const given = (value: string | undefined): value is string => value !== undefined && value !== '';

export function journalFilter(query: Query): JournalFilter {
  const { route, status, identity, since, after } = query;
  let name;
  if (given(route)) {
    const found = lookUpRoute(route);
    if ('error' in found)
      throw new CardsError('QUERY_INVALID', `Query parameter route: ${found.error}`);
    name = found.route;
  }
  const time = given(since) ? Date.parse(since) : undefined;
  if (Number.isNaN(time))
    throw new CardsError(
      'QUERY_INVALID',
      `Query parameter since must be an ISO 8601 time, got "${since}".`,
    );
  return {
    ...(name !== undefined && { route: name }),
    ...(given(status) &&
      (status.endsWith('xx')
        ? { status: { class: Number(status[0]) } }
        : { status: { exact: Number(status) } })),
    ...(given(identity) && { identity }),
    ...(time !== undefined && { since: time }),
    ...(given(after) && { after: Number(after) }),
  };
}
