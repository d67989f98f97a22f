/**
 * The log's reads on the raw request path (issue 16's speed: a tile ≥ 20,000 req/s). A tile is
 * immutable static data, and on a busy server fastify's per-request machinery (routing, hooks,
 * reply object) costs more than sending it: on the test host, a bare fastify route sending 8 KiB
 * answers about two thirds of what node's own `http` does. So a plain `GET` of the checkpoint,
 * of a tile or bundle already in memory, or of a card's proof is answered here, before fastify,
 * with the same answer (log-routes.ts says what each answer is) and the same record (request
 * line, metrics, journal).
 *
 * Everything else goes the normal way, which then gives the answer: another method, a query
 * string, a tile not read yet (fastify's handler reads it, and the next request finds it here),
 * any refusal (a proof that fails is asked again through fastify, which sends the Error
 * object), and what app.ts's `passOn` names (closing, over the connection cap, no Host).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { routePath, type RouteName } from '../core/routes.js';
import type { CardLog } from '../registry/card-log.js';
import { checkpointAnswer, proofAnswer, tileAnswer, type LogAnswer } from './log-routes.js';

export interface LogFastPathOptions {
  readonly log: CardLog;
  /** Headers every answer carries besides its own (CORS). */
  readonly headers: Readonly<Record<string, string>>;
  /** Not for the fast path: answered by fastify (closing, over the cap, no Host). */
  readonly passOn: (request: IncomingMessage) => boolean;
  /** Records an answered request as the onResponse hook does. */
  readonly served: (route: RouteName, path: string, ms: number) => void;
}

export type RawHandler = (request: IncomingMessage, response: ServerResponse) => void;

const CHECKPOINT = routePath('logCheckpoint');
const TILE = routePath('logTile', { '*': '' });
const PROOF = routePath('logProof', { id: '' });

export function logFastPath(options: LogFastPathOptions): (next: RawHandler) => RawHandler {
  const { log, headers } = options;
  const answer = (
    request: IncomingMessage,
    response: ServerResponse,
    route: RouteName,
    started: number,
    { type, cacheControl, body }: LogAnswer,
  ): void => {
    response.writeHead(200, {
      ...headers,
      'content-type': type,
      'cache-control': cacheControl,
      'content-length': Buffer.byteLength(body),
    });
    response.end(body);
    options.served(route, request.url as string, performance.now() - started);
  };

  return (next) => (request, response) => {
    const url = request.url ?? '';
    if (
      request.method !== 'GET' ||
      !url.startsWith('/log/') ||
      url.includes('?') ||
      options.passOn(request)
    )
      return next(request, response);
    const started = performance.now();
    if (url === CHECKPOINT)
      return answer(request, response, 'logCheckpoint', started, checkpointAnswer(log));
    if (url.startsWith(TILE)) {
      const tile = log.cachedTile(`tile/${url.slice(TILE.length)}`);
      return tile
        ? answer(request, response, 'logTile', started, tileAnswer(tile))
        : next(request, response);
    }
    if (url.startsWith(PROOF)) {
      // No wait for a card not integrated yet: fastify's handler waits, and refuses in time.
      log.proof(url.slice(PROOF.length), { wait: false }).then(
        (proof) => answer(request, response, 'logProof', started, proofAnswer(proof)),
        () => next(request, response),
      );
      return;
    }
    next(request, response);
  };
}
