/**
 * The transparency log's handlers (C2SP tlog-tiles v0.1.0, tlog-proof): public, no token.
 * Caching as tlog-tiles asks: the checkpoint is mutable ("SHOULD prevent caching beyond a few
 * seconds"), tiles and bundles are immutable ("caching headers SHOULD be long-lived"); a partial
 * tile gets a shorter life, since a log MAY delete it once its full tile exists.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CardsError } from '../core/errors.js';
import type { CardLog } from '../registry/card-log.js';

type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

const TEXT = 'text/plain; charset=utf-8';
const SHORT = 'public, max-age=2';
const IMMUTABLE = 'public, max-age=31536000, immutable';
const PARTIAL = 'public, max-age=300';

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
    logCheckpoint: async (_request, reply) =>
      reply.header('cache-control', SHORT).type(TEXT).send(need().checkpoint()),
    logTile: async (request, reply) => {
      const path = `tile/${(request.params as { '*': string })['*']}`;
      const { data, full } = await need().readTilePath(path);
      return reply
        .header('cache-control', full ? IMMUTABLE : PARTIAL)
        .type('application/octet-stream')
        .send(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
    },
    logProof: async (request, reply) => {
      const proof = await need().proof((request.params as { id: string }).id);
      return reply.header('cache-control', SHORT).type(TEXT).send(proof);
    },
  };
}
