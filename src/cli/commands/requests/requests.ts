/**
 * `cards requests`: a server's request journal (GET /_cards/requests), filtered by route,
 * status, identity and time, followed as it grows (`--follow`), or checked against an
 * expectation (`--expect 'create 201' [--count N | --at-least N]`): for a CI step after an
 * application's tests, exit 0 when it holds and 1 otherwise, printing what was seen.
 */
import { CardsError } from '../../../core/errors.js';
import { lookUpRoute } from '../../../core/route-name.js';
import type { RouteName } from '../../../core/routes.js';
import { adminClient, limitOf, type AdminFlags } from '../../admin-access.js';
import type { CommandContext } from '../../context.js';
import { emitItem } from '../../output.js';

export interface RequestsFlags extends AdminFlags {
  limit?: string;
  route?: string;
  status?: string;
  identity?: string;
  since?: string;
  follow?: boolean;
  expect?: string;
  count?: number;
  atLeast?: number;
  json?: boolean;
  /** --follow: ms between polls. */
  interval?: number;
}

export interface JournalEntry {
  seq: number;
  time: string;
  method: string;
  path: string;
  route: string;
  status: number;
  code: string | null;
  identity: string;
  ms: number;
  fault?: string;
}

export interface RequestsResult {
  requests: JournalEntry[];
  total: number;
  /** With --expect: what was expected, how many matched, and whether that holds. */
  expect?: {
    route: RouteName;
    status: string | null;
    count?: number;
    atLeast?: number;
    seen: number;
    holds: boolean;
  };
}

const usage = (message: string): CardsError => new CardsError('USAGE', message);

function routeOf(name: string, flag: string): RouteName {
  const found = lookUpRoute(name);
  if ('error' in found) throw usage(`${flag}: ${found.error}`);
  return found.route;
}

const STATUS = /^([1-5]\d\d|[1-5]xx)$/;

function statusOf(text: string, flag: string): string {
  if (!STATUS.test(text))
    throw usage(`${flag}: a status is 201 or a class such as 4xx, got "${text}".`);
  return text;
}

/** `--since`: an ISO 8601 time, or a span back from now (`90s`, `5m`, `2h`, `1d`). */
function sinceOf(text: string, now: number): string {
  const span = /^(\d+)(ms|s|m|h|d)$/.exec(text);
  if (span) {
    const unit = { ms: 1, s: 1e3, m: 6e4, h: 3.6e6, d: 8.64e7 }[span[2] as 'ms'];
    return new Date(now - Number(span[1]) * unit).toISOString();
  }
  const time = Date.parse(text);
  if (!/^\d{4}-\d\d-\d\d/.test(text) || Number.isNaN(time))
    throw usage(`--since: an ISO 8601 time or a span such as 5m, got "${text}".`);
  return new Date(time).toISOString();
}

/** `--expect 'ROUTE [STATUS]'`. */
function expectationOf(text: string): { route: RouteName; status: string | null } {
  const [route, status, ...rest] = text.trim().split(/\s+/);
  if (!route || rest.length > 0)
    throw usage(`--expect takes a route and a status, such as 'create 201', got "${text}".`);
  return {
    route: routeOf(route, '--expect'),
    status: status === undefined ? null : statusOf(status, '--expect'),
  };
}

type Query = Record<string, string | undefined>;

function filterQuery(ctx: CommandContext, flags: RequestsFlags): Query {
  return {
    route: flags.route === undefined ? undefined : routeOf(flags.route, '--route'),
    status: flags.status === undefined ? undefined : statusOf(flags.status, '--status'),
    identity: flags.identity,
    since: flags.since === undefined ? undefined : sinceOf(flags.since, ctx.now()),
  };
}

/** `line`: an entry as text (--follow prints each as it comes). */
export async function requests(
  ctx: CommandContext,
  flags: RequestsFlags,
  line: (entry: JournalEntry) => string,
): Promise<RequestsResult | undefined> {
  if (flags.count !== undefined && flags.atLeast !== undefined)
    throw usage('give --count N (exactly) or --at-least N, not both.');
  if ((flags.count !== undefined || flags.atLeast !== undefined) && flags.expect === undefined)
    throw usage('--count and --at-least count what --expect names.');
  if (flags.follow && flags.expect !== undefined)
    throw usage('--expect checks the journal once; it does not take --follow.');
  const client = adminClient(ctx, flags);
  const query = filterQuery(ctx, flags);
  const get = (extra: Query) =>
    client.json<RequestsResult>('GET', 'adminRequests', { query: { ...query, ...extra } });
  if (flags.follow) return follow(ctx, flags, get, line);
  if (flags.expect === undefined) return get({ limit: limitOf(flags.limit) });
  const expected = expectationOf(flags.expect);
  const all = await get({ all: 'true' });
  const seen = all.requests.filter(
    (entry) =>
      entry.route === expected.route &&
      (expected.status === null || matchesStatus(entry.status, expected.status)),
  ).length;
  const holds = flags.count !== undefined ? seen === flags.count : seen >= (flags.atLeast ?? 1);
  // What was seen of the route, every status, so a failure shows what happened instead.
  const ofRoute = all.requests.filter((entry) => entry.route === expected.route);
  return {
    requests: ofRoute,
    total: all.total,
    expect: {
      ...expected,
      ...(flags.count !== undefined ? { count: flags.count } : { atLeast: flags.atLeast ?? 1 }),
      seen,
      holds,
    },
  };
}

const matchesStatus = (status: number, wanted: string): boolean =>
  wanted.endsWith('xx')
    ? Math.floor(status / 100) === Number(wanted[0])
    : status === Number(wanted);

/** Prints the journal as it grows, oldest first, until interrupted (Ctrl-C). */
async function follow(
  ctx: CommandContext,
  flags: RequestsFlags,
  get: (extra: Query) => Promise<RequestsResult>,
  requestLine: (entry: JournalEntry) => string,
): Promise<undefined> {
  let page = await get({ limit: limitOf(flags.limit) ?? '10' });
  for (;;) {
    const fresh = [...page.requests].reverse();
    for (const entry of fresh) emitItem(ctx, requestLine, entry, flags);
    // Every entry up to `total` was looked at by this answer: the next one starts after it.
    const after = String(page.total);
    await new Promise((resolve) => setTimeout(resolve, flags.interval ?? 500));
    page = await get({ all: 'true', after });
  }
}
