/**
 * The Cards API routes (spec section 4) in all three spellings the deployed clients and the spec
 * use: resource first (`/card/v5/...`, what the stock clients send), version first
 * (`/v5/card/...`, the spec's create/get/search) and unversioned (`/card/...`). Each handler is
 * a line or two: authenticate, call the registry, send the card's JSON.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { WireProfile } from '../core/profile.js';
import type { IndexedCard, Registry } from '../registry/registry.js';
import type { Authenticator } from './auth.js';

export const ROUTE_PREFIXES = ['/card/v5', '/v5/card', '/card'] as const;

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

type IdParams = { Params: { id: string } };

const sendCard = (reply: FastifyReply, status: number, entry: IndexedCard): FastifyReply =>
  reply.code(status).type(JSON_TYPE).send(entry.json);

export function registerRoutes(app: FastifyInstance, deps: RouteDeps): void {
  const { registry, profile, auth } = deps;
  app.decorateRequest('identity', '');
  const authenticate = async (request: FastifyRequest): Promise<void> => {
    request.identity = await auth.authenticate(request.headers.authorization);
  };

  app.get('/health', async (_request, reply) =>
    reply.type(JSON_TYPE).send(
      JSON.stringify({
        status: 'ok',
        cards: registry.size,
        profile: profile.name,
        version: deps.version,
      }),
    ),
  );

  for (const prefix of ROUTE_PREFIXES) {
    // Spec 4.1: create (201, the stored card).
    app.post(prefix, { onRequest: authenticate }, async (request, reply) =>
      sendCard(reply, 201, await registry.createCard(request.body, request.identity)),
    );
    // Spec 4.2: get (200; the superseded header when another card names it).
    app.get<IdParams>(`${prefix}/:id`, { onRequest: authenticate }, async (request, reply) => {
      const entry = registry.getCard(request.params.id);
      if (entry.superseded) reply.header(profile.supersededHeader, 'true');
      return sendCard(reply, 200, entry);
    });
    // Spec 4.3: search (200, an array; [] when nothing matches).
    app.post(`${prefix}/actions/search`, { onRequest: authenticate }, async (request, reply) => {
      const found = registry.searchCards(request.body);
      return reply.type(JSON_TYPE).send(`[${found.map((entry) => entry.json).join(',')}]`);
    });
    // Spec 4.4: revoke with a revoking card (200, the stored revoking card).
    app.post(`${prefix}/actions/revoke`, { onRequest: authenticate }, async (request, reply) =>
      sendCard(reply, 200, await registry.revokeCard(request.body, request.identity)),
    );
    // Spec 4.5: revoke by id (200; the service-built revoking card, which clients ignore).
    app.post<IdParams>(
      `${prefix}/actions/revoke/:id`,
      { onRequest: authenticate },
      async (request, reply) =>
        sendCard(
          reply,
          200,
          await registry.revokeCardById(request.params.id, request.identity, request.body),
        ),
    );
  }
}

const P = '(?:/card/v5|/v5/card|/card)';
const KNOWN_PATHS: readonly (readonly [RegExp, readonly string[]])[] = [
  [new RegExp(`^${P}$`), ['POST']],
  [new RegExp(`^${P}/actions/(?:search|revoke)$`), ['POST']],
  [new RegExp(`^${P}/actions/revoke/[^/]+$`), ['POST']],
  [new RegExp(`^${P}/[^/]+$`), ['GET', 'HEAD']],
  [/^\/health$/, ['GET', 'HEAD']],
];

/** The methods a known path answers (for 405 and its Allow header); [] for an unknown path. */
export function allowedMethods(path: string, cors: boolean): string[] {
  const methods = new Set<string>();
  for (const [pattern, allowed] of KNOWN_PATHS)
    if (pattern.test(path)) for (const method of allowed) methods.add(method);
  if (cors && methods.size > 0) methods.add('OPTIONS');
  return [...methods];
}
