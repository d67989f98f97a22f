/**
 * The HTTP app: `createApp(deps)` builds the Cards service on the one HTTP stack (stack.ts) as
 * fastify plugins: the card routes, e3kit's Keyknox and Pythia routes (when given), the
 * transparency log, and (unless off) the admin API with the page. No listen here: `cards serve` listens, tests `inject`.
 *
 * Every response that is not a card is the Error object with a documented code: unknown paths
 * 404, known paths with another method 405 (with Allow), both derived from the routes served;
 * bodies over 64 KiB 413, non-JSON 415, bad JSON 30001, malformed requests 400, fastify's own
 * errors translated (error-reply.ts).
 */
import cors from '@fastify/cors';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CardsError } from '../core/errors.js';
import type { FaultRule } from '../core/fault-rule.js';
import { LIMITS } from '../core/limits.js';
import type { WireProfile } from '../core/profile.js';
import {
  MAX_PARAM_LENGTH,
  methodsFor,
  ROUTES,
  routePaths,
  type RouteName,
  type RouteSpec,
} from '../core/routes.js';
import { Admin } from '../registry/admin.js';
import type { CardLog } from '../registry/card-log.js';
import type { Registry } from '../registry/registry.js';
import { createAdminGuard } from './admin-auth.js';
import { adminRoutes, type AdminDeps } from './admin-routes.js';
import type { Authenticator } from './auth.js';
import { cardRoutes } from './card-routes.js';
import { e3kitRoutes, type E3kitRoutesDeps } from './e3kit-routes.js';
import { corsAnswerHeaders, corsAnswerHook, corsAtPath, corsOptions } from './cors.js';
import { errorBody, JSON_TYPE } from './error-reply.js';
import { faultHooks, FaultSet } from './faults.js';
import { logRefusalHeaders, logRoutes } from './log-routes.js';
import { Metrics } from './metrics.js';
import { recorder, RequestJournal } from './request-journal.js';
import { guardedAtPath, SECURITY_HEADERS } from './security-headers.js';
import { silentLogger, type RequestLogger } from './request-log.js';
import { createStack, logPath, pathOf } from './stack.js';
import type { ServerLimits } from './server-limits.js';

export interface AppOptions {
  readonly registry: Registry;
  readonly profile: WireProfile;
  readonly auth: Authenticator;
  /** Request lines and warnings; default: none. */
  readonly logger?: RequestLogger;
  /** CORS headers for any origin (default true). */
  readonly cors?: boolean;
  readonly limits?: Partial<ServerLimits>;
  /** Reported by /health. */
  readonly version?: string;
  /** The admin API, the page, /metrics and /openapi.json; off when absent. */
  readonly admin?: AdminAppOptions;
  /** The transparency log served under /log/. */
  readonly log?: CardLog;
  /** Fault rules in force from the start (`cards serve --faults FILE`); more by the admin API. */
  readonly faults?: readonly FaultRule[];
  /**
   * The engine's Keyknox entries (src/store/keyknox.ts): carried by export and import, emptied
   * with the cards by the reset.
   */
  readonly keyknox?: ConstructorParameters<typeof Admin>[2];
  /** Keyknox v1 and v2 and Pythia (e3kit-routes.ts); absent: not served. */
  readonly e3kit?: Omit<E3kitRoutesDeps, 'profile' | 'auth'>;
}

export interface AdminAppOptions {
  /** Bearer token of the admin routes. */
  readonly token: string;
  /** The server listens on loopback only: admin routes need no token (admin-auth.ts). */
  readonly loopbackOpen: boolean;
  /** The service's public key, base64 DER SPKI (shown to the page). */
  readonly serviceKey: string;
  /** Requests the journal keeps (default 1000). */
  readonly journalSize?: number;
}

/** What a person who guessed a path should read instead (from the routes served). */
const routeList = (routes: readonly RouteSpec[]): string =>
  `The routes: ${routes
    .filter((route) => route.tag !== 'page')
    .map((route) => `${route.method} ${routePaths(route)[0]}`)
    .join(', ')} (card routes also as /v5/card… and /card…).`;

export async function createApp(options: AppOptions): Promise<FastifyInstance> {
  const { profile } = options;
  const corsOn = options.cors ?? true;
  const version = options.version ?? '';
  const faults = new FaultSet();
  faults.add(options.faults ?? []);
  const admin = options.admin && adminDeps(options, options.admin, version, faults);

  // The routes the plugins registered (onRoute below): what 404 and 405 are derived from.
  const names = new Set<RouteName>();
  let served: readonly RouteSpec[] = [];
  // OPTIONS where CORS is on and the path's route has it (cors.ts).
  const allowed = (url: string): string[] => {
    const path = pathOf(url);
    const methods = methodsFor(served, path, false);
    if (corsOn && methods.length > 0 && corsAtPath(served, path)) methods.push('OPTIONS');
    return methods;
  };
  // 404 for a path no route serves, 405 with Allow for a known one.
  const notFound = (request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const methods = allowed(request.url);
    if (methods.length === 0)
      return refuse(
        reply,
        new CardsError(
          'ROUTE_NOT_FOUND',
          `Route not found: ${request.method} ${logPath(request.url)}. ${routeList(served)}`,
        ),
      );
    reply.header('allow', methods.join(', '));
    return refuse(
      reply,
      new CardsError(
        'METHOD_NOT_ALLOWED',
        `Method ${request.method} is not allowed here; use ${methods.join(', ')}.`,
      ),
    );
  };
  const { app, refuse, drop } = createStack({
    logger: options.logger ?? silentLogger,
    limits: options.limits,
    bodyLimit: LIMITS.bodyMax,
    maxParamLength: MAX_PARAM_LENGTH,
    errorBody: (err) => ({ type: JSON_TYPE, body: errorBody(profile, err) }),
    notFound,
    onServed: admin && recorder(admin.journal, admin.metrics),
    corsHeaders:
      corsOn &&
      ((url) => (corsAtPath(served, pathOf(url)) ? corsAnswerHeaders(profile) : undefined)),
    pathHeaders: (url: string) => {
      const path = pathOf(url);
      return admin && guardedAtPath(served, path) ? SECURITY_HEADERS : logRefusalHeaders(path);
    },
  });
  // Faults on purpose: each route's handler behind the rules in force, after its guard (faults.ts).
  app.addHook('onRoute', faultHooks({ faults, refuse, drop }));
  app.addHook('preClose', (done) => {
    faults.hurry();
    done();
  });
  app.addHook('onRoute', ({ config }) => {
    const name = (config as { routeName?: RouteName } | undefined)?.routeName;
    if (name) names.add(name);
  });

  // JSON only; an empty body is no body (revoke by id sends none, or `{}`).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text) as unknown);
    } catch {
      done(new CardsError('BODY_PARSE', 'Request body is not valid JSON.'), undefined);
    }
  });

  // Preflights: @fastify/cors on a scope holding only its OPTIONS route (cors.ts), which every
  // OPTIONS request reaches. @fastify/cors answers each itself: unknown paths included, and a
  // plain OPTIONS (no Origin / Access-Control-Request-Method) with a text/plain 400. This
  // scope's first hook keeps those ours; a path whose routes answer no other origin refuses
  // OPTIONS as any method it does not serve.
  if (corsOn)
    await app.register(async (preflight) => {
      preflight.addHook('onRequest', (request, reply, done) => {
        const methods = allowed(request.url);
        if (methods.length === 0) refuse(reply, new CardsError('ROUTE_NOT_FOUND'));
        else if (!methods.includes('OPTIONS')) notFound(request, reply);
        else if (!request.headers.origin || !request.headers['access-control-request-method'])
          reply.code(204).header('allow', methods.join(', ')).send();
        else done();
      });
      await preflight.register(cors, corsOptions(profile));
    });
  // The routes that answer other origins (cors.ts `corsRoute`): one scope, one CORS hook.
  await app.register(async (open) => {
    if (corsOn) open.addHook('onRequest', corsAnswerHook(profile));
    await open.register(
      cardRoutes({
        registry: options.registry,
        profile,
        auth: options.auth,
        version,
        isAdminToken: admin?.guard.isAdminToken,
      }),
    );
    if (options.e3kit)
      await open.register(e3kitRoutes({ ...options.e3kit, profile, auth: options.auth }));
    await open.register(logRoutes(options.log));
  });
  if (admin) await app.register(adminRoutes(admin));
  await app.ready();
  served = ROUTES.filter((route) => names.has(route.name));
  return app;
}

function adminDeps(
  options: AppOptions,
  admin: AdminAppOptions,
  version: string,
  faults: FaultSet,
): AdminDeps {
  const metrics = new Metrics();
  options.registry.observeWrites((ms) => metrics.storeWrite(ms));
  return {
    admin: new Admin(options.registry.store, options.log, options.keyknox),
    registry: options.registry,
    guard: createAdminGuard({
      token: admin.token,
      loopbackOpen: admin.loopbackOpen,
      cardScheme: options.profile.scheme,
    }),
    journal: new RequestJournal(admin.journalSize),
    faults,
    metrics,
    profile: options.profile,
    version,
    serviceKey: admin.serviceKey,
    log: options.log,
    pythia: options.e3kit?.pythia,
  };
}
