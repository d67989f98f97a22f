/**
 * The transparency log as a fastify plugin (C2SP tlog-tiles v0.1.0, tlog-proof): public, no
 * token. Caching as tlog-tiles asks: the checkpoint is mutable ("SHOULD prevent caching beyond a
 * few seconds"), tiles and bundles are immutable ("caching headers SHOULD be long-lived"); a
 * partial tile gets a shorter life, since a log MAY delete it once its full tile exists.
 *
 * A tile is named by its path as the client sent it, not percent-decoded as a route parameter
 * is, so a tile has one name (`tile/0/%30%30%30` is no immutable alias of `tile/0/000`). A log
 * whose tiles are files at their tlog-tiles paths (`TileStore.directory`, the JSON engine) is
 * served as the static folder it is: the file at that path, as any static file server would
 * serve it; a partial tile removed once its full tile was written, and every other engine's
 * tiles, are read through the log. Either way the bytes are kept in one cache, emptied when the
 * log's origin changes: a reset begins a log under another origin, whose tile paths repeat.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { LRUCache } from 'lru-cache';
import { CardsError } from '../core/errors.js';
import { routePath } from '../core/routes.js';
import { parseTilePath } from '../log/tile-path.js';
import type { CardLog } from '../registry/card-log.js';
import { addRoutes } from './route-group.js';
import { pathOf } from './stack.js';

const TEXT = 'text/plain; charset=utf-8';
const OCTETS = 'application/octet-stream';
const SHORT = 'public, max-age=2';
const IMMUTABLE = 'public, max-age=31536000, immutable';
const PARTIAL = 'public, max-age=300';

/** Bytes of tiles and bundles kept in memory (the hot ones: the right edge, popular bundles). */
const TILE_CACHE_BYTES = 32 * 1024 * 1024;

const TILE = routePath('logTile', { '*': '' });

const send = (reply: FastifyReply, type: string, cacheControl: string, body: string | Buffer) =>
  reply.header('cache-control', cacheControl).type(type).send(body);

/** The file at `path`, or undefined when there is none. */
const readIfThere = (path: string): Promise<Buffer | undefined> =>
  readFile(path).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });

const toBuffer = (data: Uint8Array): Buffer =>
  Buffer.from(data.buffer, data.byteOffset, data.byteLength);

export const logRoutes =
  (log: CardLog | undefined): FastifyPluginAsync =>
  async (scope) => {
    const need = (): CardLog => {
      if (!log)
        throw new CardsError(
          'LOG_DISABLED',
          'This server keeps no transparency log (it was started with --no-log).',
        );
      return log;
    };
    const directory = log?.writer.tiles.directory;
    /** Tiles read, by path, of the log `origin` names; emptied when a reset begins another. */
    const kept = new LRUCache<string, Buffer>({
      maxSize: TILE_CACHE_BYTES,
      sizeCalculation: (data) => Math.max(1, data.byteLength),
    });
    let origin = '';
    /** The tile or bundle at a path as sent; LOG_TILE_NOT_FOUND for anything else. */
    const read = async (log: CardLog, path: string): Promise<Buffer> => {
      const reading = log.origin;
      const file =
        directory !== undefined && parseTilePath(path)
          ? await readIfThere(join(directory, path))
          : undefined;
      const data = file ?? toBuffer((await log.readTilePath(path)).data);
      // A read that began before a reset is the old log's: answered, never kept for the new one.
      if (log.origin === reading) kept.set(path, data);
      return data;
    };
    addRoutes(scope, {
      handlers: {
        logCheckpoint: async (_request, reply) => send(reply, TEXT, SHORT, need().checkpoint()),
        logTile: async (request, reply) => {
          const log = need();
          if (log.origin !== origin) {
            kept.clear();
            origin = log.origin;
          }
          const path = `tile/${pathOf(request.url).slice(TILE.length)}`;
          const data = kept.get(path) ?? (await read(log, path));
          return send(reply, OCTETS, path.includes('.p/') ? PARTIAL : IMMUTABLE, data);
        },
        logProof: async (request, reply) =>
          send(reply, TEXT, SHORT, await need().proof((request.params as { id: string }).id)),
      },
    });
  };
