/**
 * The handlers of the Cards API, bound to the one route table (src/core/routes.ts) by name. Each
 * handler is a line or two: call the registry, send the card's JSON; authorization is the
 * table's.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { WireProfile } from '../core/profile.js';
import { CardsError, isCardsError, type ErrorCode } from '../core/errors.js';
import {
  isAdminRoute,
  methodsFor,
  ROUTES,
  routePaths,
  type CardRouteName,
  type RouteName,
  type RouteSpec,
} from '../core/routes.js';
import type { CardEntry, Registry } from '../registry/registry.js';
import { adminHandlers, type AdminDeps } from './admin-routes.js';
import type { CardLog } from '../registry/card-log.js';
import type { Authenticator } from './auth.js';
import { corsAtPath, corsRoute } from './cors.js';
import { logHandlers } from './log-routes.js';
import { securityHeaders } from './security-headers.js';

export const JSON_TYPE = 'application/json; charset=utf-8';

declare module 'fastify' {
  interface FastifyRequest {
    /** The identity of the request's verified token ('' before authentication; 'admin'). */
    identity: string;
    /** The code of the Error object sent, '' when none (request line, journal). */
    refusal: ErrorCode | '';
  }
  interface FastifyContextConfig {
    /** The route table's name of the route (metrics, journal). */
    routeName?: RouteName;
  }
}

export interface RouteDeps {
  readonly registry: Registry;
  readonly profile: WireProfile;
  readonly auth: Authenticator;
  readonly version: string;
  /** The admin API, the page and the OpenAPI document; absent with --no-admin. */
  readonly admin?: AdminDeps;
  /** The transparency log; absent: its routes answer LOG_DISABLED. */
  readonly log?: CardLog;
}

type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

const sendCard = (reply: FastifyReply, status: number, entry: CardEntry): FastifyReply =>
  reply.code(status).type(JSON_TYPE).send(entry.json);

const idOf = (request: FastifyRequest): string => (request.params as { id: string }).id;

function handlers(deps: RouteDeps): Record<CardRouteName, Handler> {
  const { registry, profile } = deps;
  return {
    // Spec 4.1: create (201, the stored card).
    createCard: async (request, reply) =>
      sendCard(reply, 201, await registry.createCard(request.body, request.identity)),
    // Spec 4.2: get (200; the superseded header when another card names it).
    getCard: async (request, reply) => {
      const entry = await registry.getCard(idOf(request));
      if (entry.superseded) reply.header(profile.supersededHeader, 'true');
      return sendCard(reply, 200, entry);
    },
    // Spec 4.3: search (200, an array; [] when nothing matches).
    searchCards: async (request, reply) => {
      const found = await registry.searchCards(request.body);
      return reply.type(JSON_TYPE).send(`[${found.map((entry) => entry.json).join(',')}]`);
    },
    // Spec 4.4: revoke with a revoking card (200, the stored revoking card).
    revokeCard: async (request, reply) =>
      sendCard(reply, 200, await registry.revokeCard(request.body, request.identity)),
    // Spec 4.5: revoke by id (200; the service-built revoking card, which clients ignore).
    revokeCardById: async (request, reply) =>
      sendCard(
        reply,
        200,
        await registry.revokeCardById(idOf(request), request.identity, request.body),
      ),
    health: async (_request, reply) =>
      reply.type(JSON_TYPE).send(
        JSON.stringify({
          status: 'ok',
          cards: await registry.count(),
          profile: profile.name,
          version: deps.version,
        }),
      ),
    ...logHandlers(deps.log),
  };
}

/** Registers the routes; returns those served (for 404/405: the admin ones only when on). */
export function registerRoutes(app: FastifyInstance, deps: RouteDeps): readonly RouteSpec[] {
  const { auth, admin } = deps;
  app.decorateRequest('identity', '');
  app.decorateRequest('refusal', '');
  const authenticate = async (request: FastifyRequest): Promise<void> => {
    const header = request.headers.authorization;
    try {
      request.identity = await auth.authenticate(header);
    } catch (err) {
      // The admin token on a card route is named as such (only on failure: free).
      if (isCardsError(err) && admin && header && admin.guard.isAdminToken(header))
        throw new CardsError('ADMIN_TOKEN_ON_CARD_ROUTE');
      throw err;
    }
  };
  const authenticateAdmin = async (request: FastifyRequest): Promise<void> => {
    if (admin) request.identity = admin.guard.admit(request.headers);
  };
  const handler: Partial<Record<RouteName, Handler>> = {
    ...handlers(deps),
    ...(admin && adminHandlers(admin)),
  };
  const served = ROUTES.filter((route) => admin || !isAdminRoute(route));
  const register = (scope: FastifyInstance, route: RouteSpec): void => {
    for (const url of routePaths(route))
      scope.route({
        method: route.method,
        url,
        config: { routeName: route.name, ...(!corsRoute(route) && { cors: false }) },
        ...(route.auth === 'card' && { onRequest: authenticate }),
        ...(isAdminRoute(route) && {
          onRequest:
            route.auth === 'admin' ? [securityHeaders, authenticateAdmin] : securityHeaders,
        }),
        handler: handler[route.name] as Handler,
      });
  };
  for (const route of served) {
    if (route.name !== 'adminImport') register(app, route);
    // Import takes NDJSON as a stream (any size); only this route parses that type.
    else
      void app.register(async (scope) => {
        scope.addContentTypeParser('application/x-ndjson', (_request, payload, done) =>
          done(null, payload),
        );
        register(scope, route);
      });
  }
  return served;
}

/**
 * The methods a known path answers (for 405 and its Allow header); [] for an unknown path.
 * OPTIONS where CORS is on and the path's route has it (cors.ts).
 */
export const allowedMethods = (
  routes: readonly RouteSpec[],
  path: string,
  cors: boolean,
): string[] => {
  const methods = methodsFor(routes, path, false);
  if (cors && methods.length > 0 && corsAtPath(routes, path)) methods.push('OPTIONS');
  return methods;
};
