/**
 * A route group: routes of the one route table (src/core/routes.ts) bound to their handlers by
 * name, added to a fastify plugin's scope. Authorization is the table's: each route's `auth`
 * picks the group's guard for it (an onRequest hook of that route). Every spelling of a route
 * carries the route's name in its config, for the request journal, the metrics and any hook
 * that acts per route. A new group of routes is its table entries and one plugin calling this.
 */
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifySchema,
  onRequestAsyncHookHandler,
  onRequestHookHandler,
} from 'fastify';
import { ROUTES, routePaths, type RouteAuth, type RouteTag } from '../core/routes.js';
import { JSON_TYPE } from './error-reply.js';

/**
 * Answers a request: a promise of the reply, or nothing when it answered before returning (a
 * kept answer: no promise and no microtask turn per request).
 */
export type Handler = (
  request: FastifyRequest,
  reply: FastifyReply,
) => Promise<FastifyReply> | undefined;
/** Sends `body` as JSON, with `status`: how a handler answers with anything but a card. */
export const sendJson = (reply: FastifyReply, body: unknown, status = 200): FastifyReply =>
  reply.code(status).type(JSON_TYPE).send(JSON.stringify(body));
/** Admits a request (setting `request.identity`) or fails it with the 401 CardsError. */
export type Guard = onRequestHookHandler | onRequestAsyncHookHandler;

/** The names of the table's routes with one of these tags. */
export type RouteNameOf<T extends RouteTag> = Extract<(typeof ROUTES)[number], { tag: T }>['name'];

export interface RouteGroup<N extends string> {
  readonly handlers: Readonly<Record<N, Handler>>;
  readonly guards?: Readonly<Partial<Record<RouteAuth, Guard>>>;
  readonly schemas?: Readonly<Partial<Record<N, FastifySchema>>>;
  /** A route's own body limit in bytes, where it is not the app's. */
  readonly bodyLimits?: Readonly<Partial<Record<N, number>>>;
}

/** Adds every spelling of each route `group` has a handler for. */
export function addRoutes<N extends string>(scope: FastifyInstance, group: RouteGroup<N>): void {
  const handlers: Readonly<Record<string, Handler>> = group.handlers;
  const schemas: Readonly<Partial<Record<string, FastifySchema>>> = group.schemas ?? {};
  for (const route of ROUTES) {
    const handler = handlers[route.name];
    if (!handler) continue;
    const guard = group.guards?.[route.auth];
    if (route.auth !== 'none' && !guard)
      throw new TypeError(`${route.name}: no ${route.auth} guard`);
    const schema = schemas[route.name];
    const bodyLimit = (group.bodyLimits as Partial<Record<string, number>> | undefined)?.[
      route.name
    ];
    for (const url of routePaths(route))
      scope.route({
        method: route.method,
        url,
        config: { routeName: route.name },
        ...(schema && { schema }),
        ...(bodyLimit !== undefined && { bodyLimit }),
        ...(guard && { onRequest: guard }),
        handler,
      });
  }
}
