/**
 * The transparency log's handlers (C2SP tlog-tiles v0.1.0, tlog-proof): public, no token.
 * Caching as tlog-tiles asks: the checkpoint is mutable ("SHOULD prevent caching beyond a few
 * seconds"), tiles and bundles are immutable ("caching headers SHOULD be long-lived"); a partial
 * tile gets a shorter life, since a log MAY delete it once its full tile exists.
 *
 * What each answer is (type, caching, body) is said once, in `ReadAnswer`s, and sent by the
 * fastify handlers here and by the raw fast path (fast-path.ts, through `logFastReads`) alike.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CardsError } from '../core/errors.js';
import { routePath } from '../core/routes.js';
import type { CardLog } from '../registry/card-log.js';
import type { FastRead, ReadAnswer } from './fast-path.js';

type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

const TEXT = 'text/plain; charset=utf-8';
const OCTETS = 'application/octet-stream';
const SHORT = 'public, max-age=2';
const IMMUTABLE = 'public, max-age=31536000, immutable';
const PARTIAL = 'public, max-age=300';

/** A successful answer of a log route (200): always with its caching. */
type LogAnswer = ReadAnswer & { readonly cacheControl: string };

const checkpointAnswer = (log: CardLog): LogAnswer => ({
  type: TEXT,
  cacheControl: SHORT,
  body: log.checkpoint(),
});

const tileAnswer = (tile: { data: Uint8Array; full: boolean }): LogAnswer => ({
  type: OCTETS,
  cacheControl: tile.full ? IMMUTABLE : PARTIAL,
  body: Buffer.from(tile.data.buffer, tile.data.byteOffset, tile.data.byteLength),
});

const proofAnswer = (proof: string): LogAnswer => ({
  type: TEXT,
  cacheControl: SHORT,
  body: proof,
});

const CHECKPOINT = routePath('logCheckpoint');
const TILE = routePath('logTile', { '*': '' });
const PROOF = routePath('logProof', { id: '' });

/**
 * The log's path of a tile (`tile/0/x001/234.p/5`) from a request URL under `/log/tile/`, as the
 * client sent it: not percent-decoded as the route's parameter is, so a tile has one name
 * (`tile/0/%30%30%30` is no alias of `tile/0/000` for a cache).
 */
const tilePathOfUrl = (url: string): string =>
  `tile/${(url.split('?', 1)[0] ?? '').slice(TILE.length)}`;

const send = (reply: FastifyReply, answer: LogAnswer): FastifyReply =>
  reply.header('cache-control', answer.cacheControl).type(answer.type).send(answer.body);

export function logHandlers(
  log: CardLog | undefined,
): Record<'logCheckpoint' | 'logTile' | 'logProof', Handler> {
  const need = (): CardLog => {
    if (!log)
      throw new CardsError(
        'LOG_DISABLED',
        'This server keeps no transparency log (it was started with --no-log).',
      );
    return log;
  };
  return {
    logCheckpoint: async (_request, reply) => send(reply, checkpointAnswer(need())),
    logTile: async (request, reply) => {
      return send(reply, tileAnswer(await need().readTilePath(tilePathOfUrl(request.url))));
    },
    logProof: async (request, reply) =>
      send(reply, proofAnswer(await need().proof((request.params as { id: string }).id))),
  };
}

/**
 * The log's reads for the fast path: the checkpoint, a tile or bundle already in memory, a
 * card's proof (no wait for a card not integrated yet: fastify's handler waits, and refuses in
 * time).
 */
export const logFastReads = (log: CardLog): FastRead[] => [
  { route: 'logCheckpoint', path: CHECKPOINT, exact: true, answer: () => checkpointAnswer(log) },
  {
    route: 'logTile',
    path: TILE,
    answer: (url) => {
      const tile = log.cachedTile(tilePathOfUrl(url));
      return tile && tileAnswer(tile);
    },
  },
  {
    route: 'logProof',
    path: PROOF,
    answer: (url) => log.proof(url.slice(PROOF.length), { wait: false }).then(proofAnswer),
  },
];
