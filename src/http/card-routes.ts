/**
 * The Cards API (spec section 4) and /health as a fastify plugin. Each handler is a line or two:
 * call the registry, send the card's JSON; authorization is the route table's (route-group.ts).
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { CardsError, isCardsError } from '../core/errors.js';
import type { WireProfile } from '../core/profile.js';
import type { CardEntry, Registry } from '../registry/registry.js';
import type { Authenticator } from './auth.js';
import { JSON_TYPE } from './error-reply.js';
import { addRoutes, type Guard, type Handler, type RouteNameOf } from './route-group.js';

export interface CardRoutesDeps {
  readonly registry: Registry;
  readonly profile: WireProfile;
  readonly auth: Authenticator;
  readonly version: string;
  /** The header carries the admin token (only with the admin API on). */
  readonly isAdminToken?: ((header: string) => boolean) | undefined;
}

const sendCard = (reply: FastifyReply, status: number, entry: CardEntry): FastifyReply =>
  reply.code(status).type(JSON_TYPE).send(entry.json);

const idOf = (request: FastifyRequest): string => (request.params as { id: string }).id;

function handlers(deps: CardRoutesDeps): Record<RouteNameOf<'cards'>, Handler> {
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

export const cardRoutes =
  (deps: CardRoutesDeps): FastifyPluginAsync =>
  async (scope) => {
    const authenticate: Guard = async (request: FastifyRequest) => {
      const header = request.headers.authorization;
      try {
        request.identity = await deps.auth.authenticate(header, request.headers);
      } catch (err) {
        // The admin token on a card route is named as such (checked on failure only: free).
        if (isCardsError(err) && header && deps.isAdminToken?.(header))
          throw new CardsError('ADMIN_TOKEN_ON_CARD_ROUTE');
        throw err;
      }
    };
    addRoutes(scope, { handlers: handlers(deps), guards: { card: authenticate } });
  };
