/**
 * The one route table of the Cards API (spec section 4, docs/http.md "Routes"): each route's
 * name, method, path and authorization. The HTTP app binds a handler to each name, derives its
 * 404/405 answers from the same table, and the client builds its paths from it, so a route
 * cannot exist in one place and not another. Pure.
 *
 * Card routes answer in three spellings: resource first (`/card/v5…`, what the stock clients
 * send, and what this project's client sends), version first (`/v5/card…`, the spec's create,
 * get and search) and unversioned (`/card…`).
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * `card`: a token of the service's scheme (spec section 5); `admin`: the server's admin token
 * (`Authorization: Bearer <admin token>`; not needed when the server listens on
 * loopback only); `none`: public.
 */
export type RouteAuth = 'card' | 'admin' | 'none';

/**
 * `cards`: the Cards API; `e3kit`: the rest of e3kit's backend (Keyknox v1 and v2, Pythia),
 * with the card token; `admin`: the admin API; `page`: the page and the docs; `log`: the
 * transparency log, public as CT logs are.
 */
export type RouteTag = 'cards' | 'e3kit' | 'admin' | 'page' | 'log';

export interface RouteSpec {
  readonly name: RouteName;
  readonly method: HttpMethod;
  readonly tag: RouteTag;
  /** The path after the card prefix (`/actions/search`, `/:id`), or the whole path (`/health`). */
  readonly path: string;
  /** Served under each of CARD_PREFIXES (card routes); otherwise `path` is the whole path. */
  readonly prefixed: boolean;
  readonly auth: RouteAuth;
  /** Spec section, for documents generated from the table. */
  readonly spec?: string;
  readonly summary: string;
}

export const CARD_PREFIXES = ['/card/v5', '/v5/card', '/card'] as const;

export const ROUTES = [
  {
    name: 'createCard',
    method: 'POST',
    path: '',
    tag: 'cards',
    prefixed: true,
    auth: 'card',
    spec: '4.1',
    summary: 'Create a card (or a replacement, with previous_card_id).',
  },
  {
    name: 'getCard',
    method: 'GET',
    path: '/:id',
    tag: 'cards',
    prefixed: true,
    auth: 'card',
    spec: '4.2',
    summary: 'Get a card by id (revoked ones too); the superseded header when replaced.',
  },
  {
    name: 'searchCards',
    method: 'POST',
    path: '/actions/search',
    tag: 'cards',
    prefixed: true,
    auth: 'card',
    spec: '4.3',
    summary: 'Every card of the live chains of one or many identities.',
  },
  {
    name: 'revokeCard',
    method: 'POST',
    path: '/actions/revoke',
    tag: 'cards',
    prefixed: true,
    auth: 'card',
    spec: '4.4',
    summary: 'Revoke a chain with a revoking card (empty public key).',
  },
  {
    name: 'revokeCardById',
    method: 'POST',
    path: '/actions/revoke/:id',
    tag: 'cards',
    prefixed: true,
    auth: 'card',
    spec: '4.5',
    summary: 'Revoke a card by id; the service builds the revoking card.',
  },
  {
    name: 'health',
    method: 'GET',
    path: '/health',
    tag: 'cards',
    prefixed: false,
    auth: 'none',
    summary: 'Liveness, card count, profile and version.',
  },
  // e3kit's other services at the same base URL, with the card token: Keyknox v1 (the
  // password-protected key backup), Keyknox v2 (named backups, group tickets), Pythia.
  {
    name: 'keyknoxV1Pull',
    method: 'GET',
    path: '/keyknox/v1',
    tag: 'e3kit',
    prefixed: false,
    auth: 'card',
    summary: "The caller's Keyknox v1 blob (empty, version 1.0, when none); its hash in a header.",
  },
  {
    name: 'keyknoxV1Push',
    method: 'PUT',
    path: '/keyknox/v1',
    tag: 'e3kit',
    prefixed: false,
    auth: 'card',
    summary:
      "Stores the caller's Keyknox v1 blob, if the previous-hash header names the current one.",
  },
  {
    name: 'keyknoxV1Reset',
    method: 'POST',
    path: '/keyknox/v1/reset',
    tag: 'e3kit',
    prefixed: false,
    auth: 'card',
    summary: "Empties the caller's Keyknox v1 blob (no body).",
  },
  {
    name: 'keyknoxV2Push',
    method: 'POST',
    path: '/keyknox/v2/push',
    tag: 'e3kit',
    prefixed: false,
    auth: 'card',
    summary: "Stores one of the caller's Keyknox v2 entries and adds the readers listed.",
  },
  {
    name: 'keyknoxV2Pull',
    method: 'POST',
    path: '/keyknox/v2/pull',
    tag: 'e3kit',
    prefixed: false,
    auth: 'card',
    summary: 'A Keyknox v2 entry as the caller may read it (empty when absent or not a reader).',
  },
  {
    name: 'keyknoxV2Keys',
    method: 'POST',
    path: '/keyknox/v2/keys',
    tag: 'e3kit',
    prefixed: false,
    auth: 'card',
    summary: "The keys of an owner's Keyknox v2 entries the caller may read.",
  },
  {
    name: 'keyknoxV2Reset',
    method: 'POST',
    path: '/keyknox/v2/reset',
    tag: 'e3kit',
    prefixed: false,
    auth: 'card',
    summary: "Deletes the caller's matching Keyknox v2 entries, or removes one reader from them.",
  },
  {
    name: 'pythiaBrainkey',
    method: 'POST',
    path: '/pythia/v1/brainkey',
    tag: 'e3kit',
    prefixed: false,
    auth: 'card',
    summary: 'A Pythia brainkey seed for a blinded password (throttled per identity).',
  },
  {
    name: 'pythiaPassword',
    method: 'POST',
    path: '/pythia/v1/password',
    tag: 'e3kit',
    prefixed: false,
    auth: 'card',
    summary: 'A Pythia password transform of the key version asked, with its proof when asked.',
  },
  {
    name: 'adminInfo',
    method: 'GET',
    path: '/_cards/info',
    tag: 'admin',
    prefixed: false,
    auth: 'admin',
    summary: "The server's profile, service key, card count and whether admin needs a token.",
  },
  {
    name: 'adminCards',
    method: 'GET',
    path: '/_cards/cards',
    tag: 'admin',
    prefixed: false,
    auth: 'admin',
    summary: 'Every card in insertion order (revoked ones too) with its state; cursor-paginated.',
  },
  {
    name: 'adminIdentities',
    method: 'GET',
    path: '/_cards/identities',
    tag: 'admin',
    prefixed: false,
    auth: 'admin',
    summary: 'Identities in order, with card and live/revoked chain counts; cursor-paginated.',
  },
  {
    name: 'adminIdentity',
    method: 'GET',
    path: '/_cards/identities/:identity',
    tag: 'admin',
    prefixed: false,
    auth: 'admin',
    summary: "An identity's whole history: every chain, every card, states and dates.",
  },
  {
    name: 'adminKeyknox',
    method: 'GET',
    path: '/_cards/keyknox',
    tag: 'admin',
    prefixed: false,
    auth: 'admin',
    summary:
      "e3kit's Keyknox blobs and entries: owner, place, readers, size, version, hash and dates, never their content; cursor-paginated.",
  },
  {
    name: 'adminExport',
    method: 'GET',
    path: '/_cards/export',
    tag: 'admin',
    prefixed: false,
    auth: 'admin',
    summary: 'The registry as NDJSON, one stored card record per line, in insertion order.',
  },
  {
    name: 'adminImport',
    method: 'POST',
    path: '/_cards/import',
    tag: 'admin',
    prefixed: false,
    auth: 'admin',
    summary:
      'Loads an export (NDJSON); refused on a non-empty registry unless ?append=true; ?replace=true empties it first (a reset and an import in one).',
  },
  {
    name: 'adminReset',
    method: 'POST',
    path: '/_cards/reset',
    tag: 'admin',
    prefixed: false,
    auth: 'admin',
    summary: 'Empties the registry; the body must be {"confirm":"reset"}.',
  },
  {
    name: 'adminRequests',
    method: 'GET',
    path: '/_cards/requests',
    tag: 'admin',
    prefixed: false,
    auth: 'admin',
    summary: 'The last requests served (newest first); tokens are never kept.',
  },
  {
    name: 'adminFaults',
    method: 'GET',
    path: '/_cards/faults',
    tag: 'admin',
    prefixed: false,
    auth: 'admin',
    summary: 'The fault rules in force, with how often each fired and how many it has left.',
  },
  {
    name: 'adminFaultsAdd',
    method: 'POST',
    path: '/_cards/faults',
    tag: 'admin',
    prefixed: false,
    auth: 'admin',
    summary:
      'Adds fault rules (one, a list, or {"faults":[…]}): an error of the error table, a delay or a dropped connection for matching requests.',
  },
  {
    name: 'adminFaultsClear',
    method: 'DELETE',
    path: '/_cards/faults',
    tag: 'admin',
    prefixed: false,
    auth: 'admin',
    summary: 'Removes every fault rule.',
  },
  {
    name: 'metrics',
    method: 'GET',
    path: '/metrics',
    tag: 'admin',
    prefixed: false,
    auth: 'admin',
    summary:
      'Prometheus text: requests by route and status, latency, cards by state, store writes.',
  },
  {
    name: 'page',
    method: 'GET',
    path: '/',
    tag: 'page',
    prefixed: false,
    auth: 'none',
    summary: 'The read-only web page (its data comes from the admin routes).',
  },
  {
    name: 'pageAsset',
    method: 'GET',
    path: '/_page/*',
    tag: 'page',
    prefixed: false,
    auth: 'none',
    summary:
      "The page's scripts and style: its own, @noble/curves and @noble/hashes, and the core modules it shares with the CLI.",
  },
  {
    name: 'openapi',
    method: 'GET',
    path: '/openapi.json',
    tag: 'page',
    prefixed: false,
    auth: 'none',
    summary: 'This document (OpenAPI 3.1).',
  },
  {
    name: 'docs',
    method: 'GET',
    path: '/docs',
    tag: 'page',
    prefixed: false,
    auth: 'none',
    summary: 'This document as a readable page.',
  },
  // The transparency log: public data, as CT logs are (no token).
  {
    name: 'logCheckpoint',
    method: 'GET',
    tag: 'log',
    path: '/log/checkpoint',
    prefixed: false,
    auth: 'none',
    spec: 'C2SP tlog-tiles v0.1.0',
    summary: "The log's latest signed checkpoint (tlog-checkpoint), with witness cosignatures.",
  },
  {
    name: 'logProof',
    method: 'GET',
    tag: 'log',
    path: '/log/proof/:id',
    prefixed: false,
    auth: 'none',
    spec: 'C2SP tlog-proof',
    summary: "A card's inclusion proof with the signed checkpoint (c2sp.org/tlog-proof@v1).",
  },
  // Last: its path is a wildcard under /log/.
  {
    name: 'logTile',
    method: 'GET',
    tag: 'log',
    path: '/log/*',
    prefixed: false,
    auth: 'none',
    spec: 'C2SP tlog-tiles v0.1.0',
    summary:
      "A Merkle tree tile (tile/<L>/<N>[.p/<W>]) or entry bundle (tile/entries/<N>[.p/<W>]) of the first log; a reset's log has its own prefix (reset-N/tile/…, reset-N/checkpoint).",
  },
] as const satisfies readonly {
  name: string;
  method: HttpMethod;
  tag: RouteTag;
  path: string;
  prefixed: boolean;
  auth: RouteAuth;
  spec?: string;
  summary: string;
}[];

export type RouteName = (typeof ROUTES)[number]['name'];

/** The admin API and the page: absent from a server started with --no-admin. */
export const isAdminRoute = (route: Pick<RouteSpec, 'tag'>): boolean =>
  route.tag === 'admin' || route.tag === 'page';

/**
 * The longest path parameter routed: an identity (admin history) is up to 1024 bytes,
 * percent-encoded up to 3 characters each.
 */
export const MAX_PARAM_LENGTH = 3200;

/** Every spelling of a route's path, in the router's syntax (`:id` for a parameter). */
export function routePaths(route: Pick<RouteSpec, 'path' | 'prefixed'>): string[] {
  return route.prefixed ? CARD_PREFIXES.map((prefix) => `${prefix}${route.path}`) : [route.path];
}

const byName = new Map<string, RouteSpec>(ROUTES.map((route) => [route.name, route]));

/** The path a client sends for a route (the stock client's spelling), parameters encoded. */
export function routePath(name: RouteName, params: Readonly<Record<string, string>> = {}): string {
  const route = byName.get(name) as RouteSpec;
  const [path] = routePaths(route) as [string];
  return path.replace(/:([A-Za-z]+)|\*/g, (match, key: string | undefined) => {
    const value = params[key ?? '*'];
    if (value === undefined) throw new TypeError(`route ${name}: missing parameter ${match}`);
    // `*` is the rest of the path (a tile path, slashes included), sent as it is.
    return key === undefined ? value : encodeURIComponent(value);
  });
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const matchers = new Map<string, RegExp>();

/**
 * A matcher for concrete paths, compiled from a router path (`:id` matches one segment, a
 * trailing `*` the rest).
 */
export function pathMatcher(path: string): RegExp {
  const known = matchers.get(path);
  if (known) return known;
  const source = path
    .split(/(:[A-Za-z]+)/)
    .map((part) => (part.startsWith(':') ? '[^/]+' : escapeRegExp(part).replace('\\*', '.*')))
    .join('');
  const matcher = new RegExp(`^${source}$`);
  matchers.set(path, matcher);
  return matcher;
}

/**
 * The methods a concrete path answers (for 405 and its Allow header), from `routes`; [] for an
 * unknown path. GET routes answer HEAD too; with CORS on, every known path answers OPTIONS.
 */
export function methodsFor(
  routes: readonly Pick<RouteSpec, 'method' | 'path' | 'prefixed'>[],
  path: string,
  cors: boolean,
): string[] {
  const methods = new Set<string>();
  for (const route of routes)
    if (routePaths(route).some((spelling) => pathMatcher(spelling).test(path))) {
      methods.add(route.method);
      if (route.method === 'GET') methods.add('HEAD');
    }
  if (cors && methods.size > 0) methods.add('OPTIONS');
  return [...methods];
}
