/**
 * The HTTP app: `createApp(deps)` builds a Fastify instance serving the Cards API over a
 * registry (house habit 5). No listen here: `cards serve` listens, tests `inject`.
 *
 * Every response that is not a card is the Error object with a documented code: unknown paths
 * 404, known paths with another method 405 (with Allow), bodies over 64 KiB 413, non-JSON 415,
 * bad JSON 30001, malformed requests 400, fastify's own errors translated (error-reply.ts).
 */
import cors from '@fastify/cors';
import { createServer, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { CardsError, numberOf, WIRE_ERRORS, wireErrorOf, type ErrorCode } from '../core/errors.js';
import { LIMITS } from '../core/limits.js';
import { MAX_PARAM_LENGTH, routePaths, type RouteName, type RouteSpec } from '../core/routes.js';
import type { WireProfile } from '../core/profile.js';
import { Admin } from '../registry/admin.js';
import type { CardLog } from '../registry/card-log.js';
import type { Registry } from '../registry/registry.js';
import { createAdminGuard } from './admin-auth.js';
import { adminFastReads, type AdminDeps } from './admin-routes.js';
import type { Authenticator } from './auth.js';
import {
  DEFAULT_LIMITS,
  httpServerOptions,
  trackConnections,
  type ServerLimits,
} from './connections.js';
import { corsGetHeaders, corsOptions } from './cors.js';
import { errorBody, rawErrorResponse, toCardsError } from './error-reply.js';
import { fastPath, type RawHandler } from './fast-path.js';
import { logFastReads } from './log-routes.js';
import { Metrics } from './metrics.js';
import { RequestJournal } from './request-journal.js';
import { silentLogger, type RequestLogger } from './request-log.js';
import { SECURITY_HEADERS } from './security-headers.js';
import { allowedMethods, JSON_TYPE, registerRoutes } from './routes.js';

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
}

/** What a person who guessed a path should read instead (from the routes served). */
const routeList = (routes: readonly RouteSpec[]): string =>
  `The routes: ${routes
    .filter((route) => route.tag !== 'page')
    .map((route) => `${route.method} ${routePaths(route)[0]}`)
    .join(', ')} (card routes also as /v5/card… and /card…).`;

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

/**
 * Not journaled: the journal's own reads, scrapes, and the page and its files (they would push
 * out what matters).
 */
const UNJOURNALED = new Set<RouteName | ''>([
  'adminRequests',
  'pageAsset',
  'metrics',
  'page',
  'docs',
]);

/**
 * A request the page made (Fetch standard: a browser sends `Sec-Fetch-Site: same-origin` on a
 * fetch or load by a document of the same origin, and only the page and /docs are served from
 * this origin): not journaled either, so watching the journal does not fill it. The journal
 * is a view for debugging clients, not an audit log: a client that sends this header itself
 * only leaves itself out (metrics still count it).
 */
const fromThePage = (headers: IncomingHttpHeaders): boolean =>
  headers['sec-fetch-site'] === 'same-origin';

/** RFC 9112 section 3.2: an HTTP/1.1 request without Host is a 400. */
const missingHost = (request: IncomingMessage): boolean =>
  request.httpVersion === '1.1' && request.headers.host === undefined;

const pathOf = (url: string): string => {
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
};
const logPath = (url: string): string => {
  const path = pathOf(url);
  return path.length > 200 ? `${path.slice(0, 200)}…` : path;
};

export async function createApp(options: AppOptions): Promise<FastifyInstance> {
  const { profile } = options;
  const logger = options.logger ?? silentLogger;
  const limits: ServerLimits = { ...DEFAULT_LIMITS, ...options.limits };
  const corsOn = options.cors ?? true;

  const sendError = (reply: FastifyReply, refusal: CardsError): FastifyReply => {
    const err = wireErrorOf(refusal);
    // The refusal's code, for its request line and the journal.
    reply.request.refusal = err.code;
    // A server-side failure is told in full to the operator, and to the client only by its code
    // and the generic message (errorBody): no file path or library message leaves the server.
    if (err.code === 'INTERNAL') logger.warn(`internal error: ${describe(err.cause ?? err)}`);
    if (err.code !== 'INTERNAL' && err.status >= 500)
      logger.warn(`${err.code}: ${err.message}${err.cause ? ` (${describe(err.cause)})` : ''}`);
    return reply.code(err.status).type(JSON_TYPE).send(errorBody(profile, err));
  };

  // Every request answered, by fastify or by the fast path (fast-path.ts): its request line,
  // and for the admin API its metrics and journal entry.
  const admin = options.admin && adminDeps(options, options.admin, profile);
  const record = (served: {
    method: string;
    url: string;
    status: number;
    code: ErrorCode | '';
    ms: number;
    route: RouteName | '';
    identity: string;
    headers: IncomingHttpHeaders;
  }): void => {
    const { method, status, code, ms, route } = served;
    const path = logPath(served.url);
    logger.request({ method, path, status, ...(code !== '' && { code }), ms });
    if (!admin) return;
    admin.metrics.request(route, status, ms);
    if (!UNJOURNALED.has(route) && !fromThePage(served.headers))
      admin.journal.push({
        at: Date.now(),
        method,
        path,
        status,
        code: code === '' ? null : String(numberOf(code)),
        identity: served.identity,
        ms: Math.round(ms * 100) / 100,
      });
  };

  let closing = false;
  let isOverCap = (_socket: Socket): boolean => false;
  // Cached reads answered before fastify (fast-path.ts): the log's with what @fastify/cors
  // sends on a GET, the admin API's with the security headers (a test compares the two paths).
  // A request the page made is passed on: fastify leaves it out of the journal (fromThePage).
  const passOn = (request: IncomingMessage): boolean =>
    closing || isOverCap(request.socket) || missingHost(request);
  const fastServed = (route: RouteName, url: string, ms: number, identity: string): void =>
    record({ method: 'GET', url, status: 200, code: '', ms, route, identity, headers: {} });
  const fastLog =
    options.log &&
    fastPath({
      reads: logFastReads(options.log),
      headers: corsOn ? corsGetHeaders(profile) : {},
      passOn,
      served: fastServed,
    });
  const fastAdmin =
    admin &&
    fastPath({
      reads: adminFastReads(admin),
      headers: SECURITY_HEADERS,
      passOn: (request) => passOn(request) || fromThePage(request.headers),
      served: fastServed,
    });
  const fast = (handler: RawHandler): RawHandler => {
    const inner = fastAdmin ? fastAdmin(handler) : handler;
    return fastLog ? fastLog(inner) : inner;
  };

  const app = Fastify({
    logger: false,
    bodyLimit: LIMITS.bodyMax,
    return503OnClosing: false,
    serverFactory: (handler) => {
      const server = createServer(httpServerOptions(limits), fast(handler));
      server.setTimeout(Math.max(limits.requestTimeoutMs * 2, 60_000));
      return server;
    },
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // A request the router refuses (a malformed escape) passes no hook: recorded here, once.
    frameworkErrors: (err, request, reply) => {
      const error = toCardsError(err);
      sendError(reply, error);
      record({
        method: request.raw.method ?? '-',
        url: request.raw.url ?? '-',
        status: reply.statusCode,
        code: error.code,
        ms: 0,
        route: '',
        identity: '',
        headers: request.headers,
      });
    },
    clientErrorHandler: (err, socket) => {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ECONNRESET' || socket.destroyed) return;
      const error = wireErrorOf(
        new CardsError(
          code === 'ERR_HTTP_REQUEST_TIMEOUT'
            ? 'REQUEST_TIMEOUT'
            : code === 'HPE_HEADER_OVERFLOW'
              ? 'HEADERS_TOO_LARGE'
              : 'HTTP_MALFORMED',
        ),
      );
      if (socket.writable) socket.end(rawErrorResponse(profile, error));
      else socket.destroy();
      logger.request({
        method: '-',
        path: '-',
        status: WIRE_ERRORS[error.code].status,
        code: error.code,
        ms: 0,
      });
    },
  });

  // Connections over the cap get 503 on their first request, then are closed.
  isOverCap = trackConnections(app.server, limits.maxConnections);
  app.addHook('preClose', async () => {
    closing = true;
  });
  // 404 and 405 are decided here, before fastify would read and parse the body.
  let served: readonly RouteSpec[] = [];
  const notFound = (request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const allowed = allowedMethods(served, pathOf(request.url), corsOn);
    if (allowed.length === 0)
      return sendError(
        reply,
        new CardsError(
          'ROUTE_NOT_FOUND',
          `Route not found: ${request.method} ${logPath(request.url)}. ${routeList(served)}`,
        ),
      );
    reply.header('allow', allowed.join(', '));
    return sendError(
      reply,
      new CardsError(
        'METHOD_NOT_ALLOWED',
        `Method ${request.method} is not allowed here; use ${allowed.join(', ')}.`,
      ),
    );
  };
  // The hooks every request passes through are callbacks, not async functions: no promise and
  // no microtask turn per hook on the cheapest routes (a tile, /health).
  app.addHook('onRequest', (request, reply, done) => {
    if (isOverCap(request.raw.socket)) {
      reply.header('connection', 'close');
      sendError(reply, new CardsError('SERVER_BUSY'));
      return;
    }
    if (missingHost(request.raw)) {
      reply.header('connection', 'close');
      sendError(reply, new CardsError('HTTP_MALFORMED', 'The Host header is missing.'));
      return;
    }
    if (request.is404) {
      notFound(request, reply);
      return;
    }
    // @fastify/cors answers every OPTIONS itself: unknown paths included, and a plain OPTIONS
    // (no Origin / Access-Control-Request-Method) with a text/plain 400. Keep those ours.
    if (corsOn && request.method === 'OPTIONS') {
      const allowed = allowedMethods(served, pathOf(request.url), corsOn);
      if (allowed.length === 0) {
        sendError(reply, new CardsError('ROUTE_NOT_FOUND'));
        return;
      }
      if (!allowed.includes('OPTIONS')) {
        notFound(request, reply);
        return;
      }
      if (!request.headers.origin || !request.headers['access-control-request-method']) {
        reply.code(204).header('allow', allowed.join(', ')).send();
        return;
      }
    }
    done();
  });
  // While closing, every response (in flight ones too) ends its connection, so close() does not
  // wait for keep-alive connections to time out.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
  app.addHook('onResponse', (request, reply, done) => {
    record({
      method: request.method,
      url: request.url,
      status: reply.statusCode,
      code: request.refusal,
      ms: reply.elapsedTime,
      route: admin ? (request.routeOptions.config.routeName ?? '') : '',
      identity: request.identity,
      headers: request.headers,
    });
    done();
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

  if (corsOn) await app.register(cors, corsOptions(profile));

  app.setErrorHandler((err, _request, reply) => sendError(reply, toCardsError(err)));
  app.setNotFoundHandler((request, reply) => notFound(request, reply));

  served = registerRoutes(app, {
    registry: options.registry,
    profile,
    auth: options.auth,
    version: options.version ?? '',
    ...(admin && { admin }),
    ...(options.log && { log: options.log }),
  });
  await app.ready();
  return app;
}

function adminDeps(options: AppOptions, admin: AdminAppOptions, profile: WireProfile): AdminDeps {
  const metrics = new Metrics();
  options.registry.observeWrites((ms) => metrics.storeWrite(ms));
  return {
    admin: new Admin(options.registry.store, options.log),
    registry: options.registry,
    guard: createAdminGuard({
      token: admin.token,
      loopbackOpen: admin.loopbackOpen,
      cardScheme: profile.scheme,
    }),
    journal: new RequestJournal(admin.journalSize ?? 1000),
    metrics,
    profile,
    version: options.version ?? '',
    serviceKey: admin.serviceKey,
    log: options.log,
  };
}

function describe(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}
