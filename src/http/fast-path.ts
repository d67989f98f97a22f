/**
 * Cached reads on the raw request path (for speed: a tile ≥ 20,000 req/s, an
 * identity's history ≥ 10,000 req/s). On a busy server fastify's per-request machinery (routing,
 * hooks, reply object) costs more than sending an answer already in memory: on the test host, a
 * bare fastify route sending 8 KiB answers about two thirds of what node's own `http` does. So a
 * plain `GET` that a `FastRead` can answer without I/O (the log's checkpoint, a tile or bundle
 * already read, a card's proof, a history already built) is answered here, before fastify, with
 * the same answer (each read's module says what it is, for its fastify handler and for this path
 * alike) and the same record (request line, metrics, journal).
 *
 * Everything else goes the normal way, which then gives the answer: another method, a query
 * string, what a read does not hold (fastify's handler reads it, and the next request finds it
 * here), any refusal (a read that declines or fails is passed on, and fastify sends the Error
 * object), and what app.ts's `passOn` names (closing, over the connection cap, no Host).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RouteName } from '../core/routes.js';

/** A successful answer (200) of a read route: what its fastify handler sends too. */
export interface ReadAnswer {
  readonly type: string;
  readonly cacheControl?: string;
  readonly body: string | Buffer;
  /** Who asked, for the request journal ('' for a public read). */
  readonly identity?: string;
}

/** A read the fast path may answer. */
export interface FastRead {
  readonly route: RouteName;
  /** The paths it answers: this one (`exact`) or those under it. */
  readonly path: string;
  readonly exact?: boolean;
  /**
   * The answer to a plain GET of `url`, or undefined to pass the request on; a promise that
   * rejects passes it on too. Never waits for I/O.
   */
  answer(url: string, request: IncomingMessage): ReadAnswer | Promise<ReadAnswer> | undefined;
}

export interface FastPathOptions {
  readonly reads: readonly FastRead[];
  /** Headers every answer carries besides its own (CORS). */
  readonly headers: Readonly<Record<string, string>>;
  /** Not for the fast path: answered by fastify (closing, over the cap, no Host). */
  readonly passOn: (request: IncomingMessage) => boolean;
  /** Records an answered request as the onResponse hook does. */
  readonly served: (route: RouteName, path: string, ms: number, identity: string) => void;
}

export type RawHandler = (request: IncomingMessage, response: ServerResponse) => void;

const isAnswer = (value: ReadAnswer | Promise<ReadAnswer>): value is ReadAnswer =>
  !(value instanceof Promise);

export function fastPath(options: FastPathOptions): (next: RawHandler) => RawHandler {
  const { reads, headers } = options;
  /** The first path segment every read is under ('/log/', '/_cards/'): others skip the list. */
  const roots = new Set(reads.map((read) => read.path.slice(0, read.path.indexOf('/', 1) + 1)));
  // Headers as node's flat [name, value, ...] list: an object built per answer (spread from the
  // shared ones) costs node's writeHead about a third of a tile's time (bench/log-serve.mjs).
  const shared = Object.entries(headers).flat();
  const send = (
    request: IncomingMessage,
    response: ServerResponse,
    route: RouteName,
    started: number,
    { type, cacheControl, body, identity = '' }: ReadAnswer,
  ): void => {
    const own = ['content-type', type, 'content-length', String(Buffer.byteLength(body))];
    if (cacheControl !== undefined) own.push('cache-control', cacheControl);
    response.writeHead(200, [...shared, ...own]);
    response.end(body);
    options.served(route, request.url as string, performance.now() - started, identity);
  };

  return (next) => (request, response) => {
    const url = request.url ?? '';
    if (
      request.method !== 'GET' ||
      !roots.has(url.slice(0, url.indexOf('/', 1) + 1)) ||
      url.includes('?') ||
      options.passOn(request)
    )
      return next(request, response);
    const started = performance.now();
    const read = reads.find((r) => (r.exact ? url === r.path : url.startsWith(r.path)));
    let answer: ReadAnswer | Promise<ReadAnswer> | undefined;
    try {
      answer = read?.answer(url, request);
    } catch {
      answer = undefined;
    }
    if (!read || answer === undefined) return next(request, response);
    if (isAnswer(answer)) return send(request, response, read.route, started, answer);
    answer.then(
      (found) => send(request, response, read.route, started, found),
      () => next(request, response),
    );
  };
}
