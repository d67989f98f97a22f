/**
 * The transparency log as a fastify plugin (C2SP tlog-tiles v0.1.0, tlog-proof): public, no
 * token. Caching as tlog-tiles asks: the checkpoint is mutable ("SHOULD prevent caching beyond a
 * few seconds"), tiles and bundles immutable ("caching headers SHOULD be long-lived"), partial
 * ones too: a partial tile of width W never changes (the log is append-only), and when the log
 * removes it once its full tile exists, it is answered with the full tile's first W hashes.
 *
 * Each log has its own prefix (log-epochs.ts `epochPrefix`): the first at `/log/`, the one a
 * reset began at `/log/reset-N/` (its checkpoint at `/log/reset-N/checkpoint`), so a tile URL
 * names the tiles of one log only. `/log/checkpoint` is the current log's checkpoint, whose
 * origin names its prefix; the prefix of a log that is no longer current is 404 (no redirect:
 * its tiles are gone, and no other log's may answer for them).
 *
 * A tile is named by its path as the client sent it, not percent-decoded as a route parameter
 * is, so a tile has one name (`tile/0/%30%30%30` is no immutable alias of `tile/0/000`). A log
 * whose tiles are files at their tlog-tiles paths (`TileStore.directory`, the JSON engine) is
 * served as the static folder it is: the file at that path, as any static file server would
 * serve it; a partial tile removed once its full tile was written, and every other engine's
 * tiles, are read through the log. Either way the bytes are kept in one cache by URL.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { LRUCache } from 'lru-cache';
import { CardsError } from '../core/errors.js';
import { routePath } from '../core/routes.js';
import { epochPrefix, splitLogPath } from '../log/log-epochs.js';
import { parseTilePath } from '../log/tile-path.js';
import type { CardLog } from '../registry/card-log.js';
import { addRoutes } from './route-group.js';
import { pathOf } from './stack.js';

const TEXT = 'text/plain; charset=utf-8';
const OCTETS = 'application/octet-stream';
const SHORT = 'public, max-age=2';
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** Bytes of tiles and bundles kept in memory (the hot ones: the right edge, popular bundles). */
const TILE_CACHE_BYTES = 32 * 1024 * 1024;

const LOG = routePath('logTile', { '*': '' });

/**
 * The headers of a refusal under /log/: no cache keeps it. What is missing now may be there
 * later (a tile past the current checkpoint, the checkpoint of a log a reset has yet to begin,
 * a card's proof before it is logged), and only tiles are immutable (C2SP tlog-tiles).
 */
export const logRefusalHeaders = (path: string): Readonly<Record<string, string>> | undefined =>
  path.startsWith(LOG) ? NOT_KEPT : undefined;
const NOT_KEPT = { 'cache-control': 'no-store' };

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
    /** Tiles read, by URL under /log/ (each names one log's tile); emptied when a reset begins a log. */
    const kept = new LRUCache<string, Buffer>({
      maxSize: TILE_CACHE_BYTES,
      sizeCalculation: (data) => Math.max(1, data.byteLength),
    });
    let origin = '';
    const gone = (url: string): CardsError =>
      new CardsError(
        'LOG_TILE_NOT_FOUND',
        `/log/${url.slice(0, 100)}: not a file of the current log (${log?.origin}, at /log/${epochPrefix(log?.writer.epoch ?? 0)}).`,
      );
    /** The tile or bundle at `path` of the current log; LOG_TILE_NOT_FOUND for anything else. */
    const read = async (log: CardLog, url: string, path: string): Promise<Buffer> => {
      const reading = log.origin;
      const file =
        directory !== undefined && parseTilePath(path)
          ? await readIfThere(join(directory, path))
          : undefined;
      const data = file ?? toBuffer((await log.readTilePath(path)).data);
      // A read that began before a reset may have found the new log's tile: never its answer.
      if (log.origin !== reading) throw gone(url);
      kept.set(url, data);
      return data;
    };
    addRoutes(scope, {
      handlers: {
        logCheckpoint: async (_request, reply) => send(reply, TEXT, SHORT, need().checkpoint()),
        // A kept tile is sent before the handler returns (no promise), and before its path is
        // parsed: what is kept is the current log's (emptied when another log begins). A tile not
        // kept is read first, awaited.
        logTile: (request, reply) => {
          const log = need();
          if (log.origin !== origin) {
            kept.clear();
            origin = log.origin;
          }
          const url = pathOf(request.url).slice(LOG.length);
          const data = kept.get(url);
          if (data !== undefined) {
            send(reply, OCTETS, IMMUTABLE, data);
            return undefined;
          }
          const { epoch, rest } = splitLogPath(url);
          if (epoch !== log.writer.epoch) throw gone(url);
          if (epoch > 0 && rest === 'checkpoint') send(reply, TEXT, SHORT, log.checkpoint());
          else if (!rest.startsWith('tile/')) throw gone(url);
          else return read(log, url, rest).then((data) => send(reply, OCTETS, IMMUTABLE, data));
          return undefined;
        },
        logProof: async (request, reply) =>
          send(reply, TEXT, SHORT, await need().proof((request.params as { id: string }).id)),
      },
    });
  };
