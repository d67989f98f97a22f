/**
 * A served transparency log read over HTTP (C2SP tlog-tiles v0.1.0, tlog-proof): its checkpoint,
 * a card's proof and its tiles, as a TileReader so that proofs and roots are computed from tiles
 * by the same code the server uses. Public routes: no token. Each log's tiles are read under its
 * own prefix, named by its origin (log-epochs.ts `prefixOfOrigin`: `/log/` for the first log,
 * `/log/reset-N/` for the one a reset began), so nothing read of one log answers for another.
 * A tile the server does not have is `undefined` (404), any other failure a CardsError (a 5xx the
 * service failing, UNREACHABLE, as the card client has it); a
 * partial tile that is gone (tlog-tiles lets a log remove it once its full tile exists: a
 * static copy of the tiles folder) is read from its full tile. No answer is read past the
 * largest entry bundle (256 entries of at most 65,535 bytes, C2SP tlog-tiles): a log that sends
 * more is not answering as a log, however long it keeps sending.
 */
import { boundedBody, sizeName } from '../client/bounded-body.js';
import { nodeFetch } from '../client/node-fetch.js';
import { readErrorObject, serviceFailure, type ErrorObject } from '../client/error-object.js';
import { CardsError, type WireCode } from '../core/errors.js';
import { MAX_ENTRY_SIZE } from '../log/entry-bundle.js';
import { routePath } from '../core/routes.js';
import type { TileReader } from '../log/tile-hashes.js';
import { prefixOfOrigin } from '../log/log-epochs.js';
import { readTileAt } from '../log/memory-tiles.js';
import { TILE_WIDTH } from '../log/tile-path.js';

/** The largest answer a log gives: a full entry bundle of the largest entries. */
const LOG_ANSWER_MAX = TILE_WIDTH * (2 + MAX_ENTRY_SIZE);

/**
 * The refusals of a log route a reader acts on, by the code the service names; any other is
 * SERVICE_REFUSED, or LOG_DISABLED on a 404.
 */
const TAKEN_OVER: ReadonlySet<WireCode> = new Set([
  'LOG_NOT_INTEGRATED',
  'LOG_DISABLED',
  'CARD_NOT_FOUND',
]);

export class RemoteLog {
  readonly url: string;
  readonly #timeoutSeconds: number;

  /** `timeoutSeconds`: each read's whole-request deadline, the command's --timeout. */
  constructor(url: string, timeoutSeconds: number) {
    this.url = url.replace(/\/+$/, '');
    this.#timeoutSeconds = timeoutSeconds;
  }

  async #get(path: string): Promise<{ status: number; body: Buffer }> {
    try {
      // The deadline covers the body too: a server that trickles it is given up on as well.
      const signal = AbortSignal.timeout(this.#timeoutSeconds * 1000);
      const res = await nodeFetch(`${this.url}${path}`, { signal });
      const body = await boundedBody(res, LOG_ANSWER_MAX);
      if (body === undefined)
        throw new CardsError(
          'NOT_A_SERVICE',
          `The log at ${this.url} answered ${path} with more than ${sizeName(LOG_ANSWER_MAX)}, more than any checkpoint, proof or tile holds.`,
        );
      return { status: res.status, body };
    } catch (cause) {
      if (cause instanceof CardsError) throw cause;
      const why =
        (cause as Error).name === 'TimeoutError'
          ? `no answer within ${this.#timeoutSeconds} s`
          : ((cause as Error).message ?? String(cause));
      throw new CardsError('UNREACHABLE', `The log at ${this.url} could not be reached (${why}).`, {
        cause,
      });
    }
  }

  async #text(path: string, what: string): Promise<string> {
    const { status, body } = await this.#get(path);
    const text = body.toString('utf8');
    if (status === 200) return text;
    const error = readErrorObject(text);
    const { code, message } = error;
    if (code !== undefined && TAKEN_OVER.has(code)) throw new CardsError(code, message);
    this.#failed(status, error, what);
    throw new CardsError(
      status === 404 ? 'LOG_DISABLED' : 'SERVICE_REFUSED',
      `${what} from ${this.url}: HTTP ${status}${message ? ` (${message})` : ''}.`,
    );
  }

  checkpoint(): Promise<string> {
    return this.#text(routePath('logCheckpoint'), 'The checkpoint');
  }

  proof(cardId: string): Promise<string> {
    return this.#text(routePath('logProof', { id: cardId }), `The proof of ${cardId}`);
  }

  /** The tiles of the log `origin` names; a partial tile it removed is read from the full one. */
  tilesOf(origin: string): TileReader {
    const prefix = prefixOfOrigin(origin);
    return { readTile: (tile) => readTileAt((path) => this.#tile(prefix + path), tile) };
  }

  async #tile(logPath: string): Promise<Uint8Array | undefined> {
    const path = routePath('logTile', { '*': logPath });
    const { status, body } = await this.#get(path);
    // A plain view of the bytes, as every tile store gives a tile (not the Buffer read into).
    if (status === 200) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
    if (status === 404) return undefined;
    this.#failed(status, readErrorObject(body.toString('utf8')), path);
    throw new CardsError('SERVICE_REFUSED', `${path} from ${this.url}: HTTP ${status}.`);
  }

  /** Throws UNREACHABLE when the answer is the service failing (a 5xx), not a refusal. */
  #failed(status: number, error: ErrorObject, what: string): void {
    const failed = serviceFailure(status, error);
    if (failed !== undefined)
      throw new CardsError(
        'UNREACHABLE',
        `${what} from ${this.url}: the service failed with HTTP ${status}${failed}.`,
      );
  }
}
