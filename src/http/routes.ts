/**
 * The handlers of the Cards API, bound to the one route table (src/core/routes.ts) by name. Each
 * handler is a line or two: call the registry, send the card's JSON; authorization is the
 * table's.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { WireProfile } from '../core/profile.js';
import { methodsFor, ROUTES, routePaths, type RouteName } from '../core/routes.js';
import type { CardEntry, Registry } from '../registry/registry.js';
import type { Authenticator } from './auth.js';

export const JSON_TYPE = 'application/json; charset=utf-8';

declare module 'fastify' {
  interface FastifyRequest {
    /** The identity of the request's verified token ('' before authentication). */
    identity: string;
  }
}

export interface RouteDeps {
  readonly registry: Registry;
  readonly profile: WireProfile;
  readonly auth: Authenticator;
  readonly version: string;
}

type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

const sendCard = (reply: FastifyReply, status: number, entry: CardEntry): FastifyReply =>
  reply.code(status).type(JSON_TYPE).send(entry.json);

const idOf = (request: FastifyRequest): string => (request.params as { id: string }).id;

function handlers(deps: RouteDeps): Record<RouteName, Handler> {
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
  };
}

export function registerRoutes(app: FastifyInstance, deps: RouteDeps): void {
  const { auth } = deps;
  app.decorateRequest('identity', '');
  const authenticate = async (request: FastifyRequest): Promise<void> => {
    request.identity = await auth.authenticate(request.headers.authorization);
  };
  const handler = handlers(deps);
  for (const route of ROUTES)
    for (const url of routePaths(route))
      app.route({
        method: route.method,
        url,
        ...(route.auth === 'card' && { onRequest: authenticate }),
        handler: handler[route.name],
      });
}

/** The methods a known path answers (for 405 and its Allow header); [] for an unknown path. */
export const allowedMethods = (path: string, cors: boolean): string[] =>
  methodsFor(ROUTES, path, cors);
