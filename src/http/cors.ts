/**
 * CORS (the Fetch standard's CORS protocol) for the routes a browser on another origin reads:
 * the Cards API and /health (the stock browser SDKs call the service from their app's origin),
 * e3kit's Keyknox and Pythia routes (e3kit-browser calls them from the same origin)
 * and the transparency log (C2SP tlog-tiles: checkpoints and tiles are public, as CT logs are,
 * and monitors and verifiers that run in a browser fetch them cross-origin). The admin API,
 * /metrics, the page, /docs and /openapi.json answer without it: the page reads them from its
 * own origin, and no page of another origin may read the registry's admin answers; a preflight
 * to one of them is a 405 whose Allow names no OPTIONS (app.ts).
 *
 * @fastify/cors answers preflights, on a scope of their own (its OPTIONS route); the routes with
 * CORS share a scope whose one hook puts its answer headers, built once, on every answer.
 */
import type { onRequestHookHandler } from 'fastify';
import { keyknoxHeaders, type WireProfile } from '../core/profile.js';
import { pathMatcher, routePaths, type RouteSpec } from '../core/routes.js';

/** Whether `route` answers other origins. */
const corsRoute = (route: Pick<RouteSpec, 'tag'>): boolean =>
  route.tag === 'cards' || route.tag === 'e3kit' || route.tag === 'log';

/**
 * What @fastify/cors sends for a route that answers other origins. Keyknox v1 writes with PUT
 * and names the hash it replaces in a request header; its answers' hash header must be exposed,
 * or a browser client reads no hash and every later write to an entry is refused as a conflict.
 */
export const corsOptions = (profile: WireProfile) => ({
  origin: '*',
  methods: ['GET', 'HEAD', 'POST', 'PUT', 'OPTIONS'],
  allowedHeaders: [
    'Authorization',
    'Content-Type',
    'Virgil-Agent',
    keyknoxHeaders(profile).previous,
  ],
  exposedHeaders: [profile.supersededHeader, keyknoxHeaders(profile).hash],
  maxAge: 600,
});

/**
 * The headers @fastify/cors puts on an answer that is not a preflight, for an answer sent before
 * its hook runs (stack.ts): the Fetch standard's CORS check reads Access-Control-Allow-Origin on
 * every answer to another origin, refusals included.
 */
export const corsAnswerHeaders = (profile: WireProfile): Readonly<Record<string, string>> => {
  const { origin, exposedHeaders } = corsOptions(profile);
  return {
    'access-control-allow-origin': origin,
    'access-control-expose-headers': exposedHeaders.join(', '),
  };
};

/** An onRequest hook: `corsAnswerHeaders` on the answer, a refusal (401, 400) included. */
export const corsAnswerHook = (profile: WireProfile): onRequestHookHandler => {
  const headers = corsAnswerHeaders(profile);
  return (_request, reply, done) => {
    reply.headers(headers);
    done();
  };
};

/** Whether a route of `routes` at a request path has CORS (for OPTIONS in its Allow). */
export const corsAtPath = (routes: readonly RouteSpec[], path: string): boolean =>
  routes.some(
    (route) =>
      corsRoute(route) && routePaths(route).some((spelling) => pathMatcher(spelling).test(path)),
  );
