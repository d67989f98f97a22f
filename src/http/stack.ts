/**
 * The one HTTP stack: `createStack` builds the fastify instance that the Cards app (app.ts) and
 * the witness (src/witness/server.ts) add their plugins to. What every request of either gets:
 * node's timeouts for slow clients, a cap on open connections (a connection over it is answered
 * 503 SERVER_BUSY and closed, so a client learns why; one past the connections held at all is
 * closed as it is accepted), the Host check of RFC 9112 section 3.2,
 * `Connection: close` while closing (so close() does not wait for keep-alive connections), every
 * failure sent as the app's refusal body (`errorBody`) with a documented code, and one request
 * line per request answered, with its route name for `onServed` (the request journal, metrics).
 *
 * The hooks every request passes are callbacks, not async functions: no promise and no microtask
 * turn per hook on the cheapest routes (a tile, /health). What is recorded of a request is
 * bound to its route when the route is added (onRoute): no lookup of the route per request.
 */
import {
  createServer,
  ServerResponse,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeader,
  type OutgoingHttpHeaders,
} from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import Fastify, {
  type FastifyContextConfig,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type onResponseHookHandler,
} from 'fastify';
import { CardsError, wireErrorOf, type WireCardsError, type WireCode } from '../core/errors.js';
import type { RouteName } from '../core/routes.js';
import { rawErrorResponse, toCardsError } from './error-reply.js';
import { lazyCompilers } from './lazy-compilers.js';
import { mayOutlastRequestTimeout } from './streamed-bodies.js';
import type { RequestLogger } from './request-log.js';
import { DEFAULT_LIMITS, connectionLimits, type ServerLimits } from './server-limits.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who asked: a verified card token's identity, 'admin' or 'loopback'; '' for nobody. */
    identity: string;
    /** The code of the Error object sent, '' when none (request line, journal). */
    refusal: WireCode | '';
    /** What a fault rule did to this request ('' for none): the journal's mark (faults.ts). */
    fault: string;
  }
  interface FastifyContextConfig {
    /** The route table's name of the route (metrics, journal, per-route hooks). */
    routeName?: RouteName;
  }
}

/** A request answered: its request line, and what `onServed` records. */
export interface Served {
  readonly method: string;
  /** The path, without the query string, cut at 200 characters. */
  readonly path: string;
  readonly status: number;
  readonly code: WireCode | '';
  readonly ms: number;
  /** '' for a path no route serves. */
  readonly route: RouteName | '';
  readonly identity: string;
  /** What a fault rule did to it, '' for none (faults.ts). */
  readonly fault: string;
}

export interface StackOptions {
  readonly logger: RequestLogger;
  readonly limits?: Partial<ServerLimits> | undefined;
  readonly bodyLimit: number;
  readonly maxParamLength?: number;
  /** The body of a refusal as this service sends it (the Error object; the witness's text). */
  readonly errorBody: (err: WireCardsError) => { readonly type: string; readonly body: string };
  /** Answers a path no route serves (404, or 405 for a known path), before any body is read. */
  readonly notFound: (request: FastifyRequest, reply: FastifyReply) => FastifyReply;
  /** Every request answered, after its request line, with the request's headers. */
  readonly onServed?: ((served: Served, headers: IncomingHttpHeaders) => void) | undefined;
  /**
   * The CORS headers of an answer to this request's path (none for a path without CORS), for
   * the refusals sent before the CORS plugin's own hook runs (SERVER_BUSY), so a page of another
   * origin reads them as it reads any other answer of the route.
   */
  readonly corsHeaders?: ((url: string) => Readonly<Record<string, string>> | undefined) | false;
  /**
   * The headers a refusal at this request's path carries: those of every answer there (the
   * admin API's and the page's security headers), for the refusals sent before its route's
   * hooks run or with no route at all (404, 405, a malformed escape, SERVER_BUSY), and those of
   * refusals alone (the log's `no-store`).
   */
  readonly pathHeaders?: ((url: string) => Readonly<Record<string, string>> | undefined) | false;
}

/** RFC 9112 section 3.2: an HTTP/1.1 request without Host is a 400. */
const missingHost = (request: IncomingMessage): boolean =>
  request.httpVersion === '1.1' && request.headers.host === undefined;

export const pathOf = (url: string): string => {
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
};
/** A path as the request line and the journal show it: no query string, at most 200 characters. */
export const logPath = (url: string): string => {
  const path = pathOf(url);
  return path.length > 200 ? `${path.slice(0, 200)}…` : path;
};

const NOT_A_PROXY = 'CONNECT asks for a tunnel: this server is not a proxy.';
const EXPECTATION =
  'The Expect header asks for more than 100-continue, the one expectation this server meets.';

const describe = (err: unknown): string =>
  err instanceof Error ? (err.stack ?? err.message) : String(err);

/** Sends `err` as the stack's refusal; set by createStack on each instance. */
export type Refuse = (reply: FastifyReply, err: CardsError) => FastifyReply;
/** Closes a request's connection without an answer, recorded with status 0. */
export type Drop = (request: FastifyRequest, reply: FastifyReply) => void;

type Headers = OutgoingHttpHeaders | OutgoingHttpHeader[];

/**
 * A request whose body was given up on before its end (an import refused at a line too long
 * stops reading it): the connection is mid-message, so no further request can follow on it
 * (RFC 9112 section 9.6). A body merely unread (a refusal before parsing) is still drained by
 * node and the connection kept.
 */
const bodyAbandoned = (req: IncomingMessage): boolean => !req.complete && req.destroyed;

/**
 * `connection: close` on an answer about to be sent, in the place of a header set last before
 * fastify's reply sends: after the headers set so far, before the content-length fastify adds
 * as it sends (a header the answer already has keeps its place). Headers set one by one (a
 * stream's) are on the response: it goes last.
 */
function sayClose(res: ServerResponse, headers: Headers | undefined): void {
  if (headers === undefined || Array.isArray(headers)) {
    res.setHeader('connection', 'close');
    return;
  }
  const length = headers['content-length'];
  delete headers['content-length'];
  headers.connection = 'close';
  if (length !== undefined) headers['content-length'] = length;
}

export function createStack(options: StackOptions): {
  app: FastifyInstance;
  refuse: Refuse;
  drop: Drop;
} {
  const { logger, errorBody, notFound } = options;
  const maxConnections = options.limits?.maxConnections ?? DEFAULT_LIMITS.maxConnections;
  const limits: ServerLimits = {
    ...DEFAULT_LIMITS,
    ...connectionLimits(maxConnections, undefined),
    ...options.limits,
  };

  const warnOperator = (err: WireCardsError): void => {
    if (err.code === 'INTERNAL') logger.warn(`internal error: ${describe(err.cause ?? err)}`);
    else if (err.status >= 500)
      logger.warn(`${err.code}: ${err.message}${err.cause ? ` (${describe(err.cause)})` : ''}`);
  };
  const refuse: Refuse = (reply, refusal) => {
    const err = wireErrorOf(refusal);
    reply.request.refusal = err.code;
    // A server-side failure is told in full to the operator, and to the client only by its code
    // and the generic message: no file path or library message leaves the server. A fault
    // rule's error is no failure: its request line says which rule sent it.
    if (reply.request.fault === '') warnOperator(err);
    const guarded = options.pathHeaders && options.pathHeaders(reply.request.url);
    if (guarded) reply.headers(guarded);
    const { type, body } = errorBody(err);
    return reply.code(err.status).type(type).send(body);
  };
  /** One object per request answered: its request line, and what onServed keeps. */
  const record = (
    method: string,
    url: string,
    status: number,
    code: WireCode | '',
    ms: number,
    route: RouteName | '',
    identity: string,
    headers: IncomingHttpHeaders,
    fault = '',
  ): void => {
    const served: Served = { method, path: logPath(url), status, code, ms, route, identity, fault };
    logger.request(served);
    options.onServed?.(served, headers);
  };

  /**
   * Refuses on the socket itself, where no request reached a route (no journal entry): the
   * refusal written when the socket still takes it, and its request line (`-` for no request).
   */
  const refuseRaw = (
    socket: Duplex,
    error: WireCardsError,
    request?: Pick<IncomingMessage, 'method' | 'url'>,
  ): void => {
    if (socket.writable) socket.end(rawErrorResponse(error, errorBody(error)));
    else socket.destroy();
    recordRaw(error, request);
  };

  /** The request line of a request node answered before any route. */
  const recordRaw = (
    error: WireCardsError,
    request?: Pick<IncomingMessage, 'method' | 'url'>,
  ): void =>
    logger.request({
      method: request?.method ?? '-',
      path: request === undefined ? '-' : logPath(request.url ?? '-'),
      status: error.status,
      code: error.code,
      ms: 0,
    });

  let closing = false;
  /**
   * Every answer of this server, whichever way it is sent (fastify's reply, or a stream's first
   * write through node's implicit header), passes writeHead: there, while the server closes or
   * after a body given up on, the answer says `connection: close`, so close() does not wait for
   * kept-alive connections and no request follows a message cut off (RFC 9112 section 9.6). In
   * node's response itself (createServer's ServerResponse option), not a fastify onSend hook:
   * no step of fastify's cycle per answer.
   */
  class Response extends ServerResponse<IncomingMessage> {
    override writeHead(statusCode: number, message?: string, headers?: Headers): this;
    override writeHead(statusCode: number, headers?: Headers): this;
    override writeHead(statusCode: number, message?: string | Headers, headers?: Headers): this {
      if (closing || bodyAbandoned(this.req))
        sayClose(this, typeof message === 'string' ? headers : message);
      return super.writeHead(statusCode, message as string, headers);
    }
  }
  const headersTimeout = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  const app = Fastify({
    logger: false,
    bodyLimit: options.bodyLimit,
    return503OnClosing: false,
    // ajv and fast-json-stringify load on the first request a schema checks (lazy-compilers.ts).
    schemaController: { compilersFactory: lazyCompilers },
    serverFactory: (handler) => {
      const server = createServer(
        {
          ServerResponse: Response,
          requestTimeout: limits.requestTimeoutMs,
          headersTimeout,
          keepAliveTimeout: limits.keepAliveTimeoutMs,
          // Node checks the two timeouts on this interval; keep the overshoot small.
          connectionsCheckingInterval: Math.max(100, Math.min(5_000, headersTimeout >> 2)),
          // Node answers a request without Host with a bare 400; refused below instead.
          requireHostHeader: false,
        },
        handler,
      );
      server.setTimeout(Math.max(limits.requestTimeoutMs * 2, 60_000));
      // Past this a connection is closed as it is accepted: however many one client opens, the
      // process keeps the descriptors it needs (server-limits.ts, RESERVED_DESCRIPTORS).
      server.maxConnections = limits.heldConnections;
      // Requests node answers itself, before any route, unless these are listened for: it
      // closes a CONNECT's connection without a word, and answers an expectation other than
      // 100-continue with a bare 417. Here each gets the service's refusal and a request line.
      server.on('connect', (request: IncomingMessage, socket: Duplex) => {
        refuseRaw(socket, wireErrorOf(new CardsError('HTTP_MALFORMED', NOT_A_PROXY)), request);
      });
      // RFC 9110 section 10.1.1: a server may refuse an expectation it does not meet.
      server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
        const error = wireErrorOf(new CardsError('HTTP_MALFORMED', EXPECTATION));
        const { type, body } = errorBody(error);
        response
          .writeHead(error.status, {
            'content-type': type,
            'content-length': Buffer.byteLength(body),
            connection: 'close',
          })
          .end(body);
        recordRaw(error, request);
      });
      return server;
    },
    ...(options.maxParamLength !== undefined && {
      routerOptions: { maxParamLength: options.maxParamLength },
    }),
    // A request the router refuses (a malformed escape) passes no hook: recorded here, once.
    frameworkErrors: (err, request, reply) => {
      const error = toCardsError(err);
      refuse(reply, error);
      const { method = '-', url = '-', headers } = request.raw;
      record(method, url, reply.statusCode, error.code, 0, '', '', headers);
    },
    clientErrorHandler: (err, socket) => {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ECONNRESET' || socket.destroyed) return;
      // Node times a request out once (it then stops watching it): an import's body goes on.
      if (code === 'ERR_HTTP_REQUEST_TIMEOUT' && mayOutlastRequestTimeout(socket)) return;
      const error = wireErrorOf(
        new CardsError(
          code === 'ERR_HTTP_REQUEST_TIMEOUT'
            ? 'REQUEST_TIMEOUT'
            : code === 'HPE_HEADER_OVERFLOW'
              ? 'HEADERS_TOO_LARGE'
              : 'HTTP_MALFORMED',
        ),
      );
      refuseRaw(socket, error);
    },
  });

  // Connections over the cap get 503 on their first request, then are closed.
  const over = new WeakSet<Socket>();
  let open = 0;
  app.server.on('connection', (socket: Socket) => {
    if (++open > limits.maxConnections) over.add(socket);
    socket.once('close', () => open--);
  });
  app.addHook('preClose', async () => {
    closing = true;
  });

  app.decorateRequest('identity', '');
  app.decorateRequest('refusal', '');
  app.decorateRequest('fault', '');
  app.addHook('onRequest', (request, reply, done) => {
    if (over.has(request.raw.socket)) {
      reply.header('connection', 'close');
      const cors = options.corsHeaders && options.corsHeaders(request.url);
      if (cors) reply.headers(cors);
      refuse(reply, new CardsError('SERVER_BUSY'));
    } else if (missingHost(request.raw)) {
      reply.header('connection', 'close');
      refuse(reply, new CardsError('HTTP_MALFORMED', 'The Host header is missing.'));
    } else done();
  });
  /** The request line and record of an answer of `route` ('' for a path no route serves). */
  const recordAs =
    (route: RouteName | ''): onResponseHookHandler =>
    (request, reply, done) => {
      record(
        request.method,
        request.url,
        reply.statusCode,
        request.refusal,
        reply.elapsedTime,
        route,
        request.identity,
        request.headers,
        request.fault,
      );
      done();
    };
  // Each route's recorder, bound to its name; the answers of no route, by the 404 handler's.
  app.addHook('onRoute', (route) => {
    const name = (route.config as FastifyContextConfig | undefined)?.routeName ?? '';
    route.onResponse = [...[route.onResponse ?? []].flat(), recordAs(name)];
  });
  app.setErrorHandler((err, _request, reply) => refuse(reply, toCardsError(err)));
  // A scope of its own (fastify's Server reference, setNotFoundHandler), so its hooks are no
  // route's: a request no route serves passes the onRequest hook above, then is answered by this
  // scope's, before any body is read, and recorded by its recorder.
  void app.register(async (missing) => {
    missing.addHook('onRequest', (request, reply) => {
      notFound(request, reply);
    });
    missing.addHook('onResponse', recordAs(''));
    missing.setNotFoundHandler((request, reply) => notFound(request, reply));
  });
  // No response, so no onResponse: the request is recorded here.
  const drop: Drop = (request, reply) => {
    reply.hijack();
    request.raw.socket.destroy();
    const route = request.routeOptions.config.routeName ?? '';
    const { method, url, identity, headers, fault } = request;
    record(method, url, 0, '', reply.elapsedTime, route, identity, headers, fault);
  };
  return { app, refuse, drop };
}
