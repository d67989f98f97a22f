/**
 * `cards witness serve`'s HTTP server (C2SP tlog-witness v1.0.0) on the one HTTP stack
 * (src/http/stack.ts): POST /add-checkpoint, and GET / with the witness's verifier key.
 * Refusals are text, as tlog-witness clients read them: the message and a newline. Requests are
 * handled one at a time, so the check of the old size and the persisted update are one atomic
 * step (the spec's race A/B cannot happen), and the state is on disk before the cosignature is
 * sent.
 */
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { wireMessageOf } from '../core/errors.js';
import { createRequestLogger, type RequestLogger } from '../http/request-log.js';
import { createStack, pathOf } from '../http/stack.js';
import { cosigner } from '../log/cosignature.js';
import { KEY_TYPE_COSIGNATURE, formatVerifierKey, type NoteVerifier } from '../log/note-keys.js';
import { addCheckpoint, parseAddCheckpoint } from '../log/witness.js';
import type { WitnessFolder } from './state.js';

const MAX_BODY = 64 * 1024;

export interface WitnessServerOptions {
  readonly folder: WitnessFolder;
  /** Trusted log keys by origin. */
  readonly logs: ReadonlyMap<string, readonly NoteVerifier[]>;
  /** POSIX seconds; the clock is a parameter so tests can pin it. */
  readonly now?: () => number;
  /** Warnings (an internal error); default: to stderr, no request lines. */
  readonly logger?: RequestLogger;
}

export interface WitnessServer {
  /** The fastify app (tests `inject` into it). */
  readonly app: FastifyInstance;
  readonly vkey: string;
  listen(port: number, host: string): Promise<string>;
  close(): Promise<void>;
}

const TEXT = 'text/plain; charset=utf-8';
const ADD = '/add-checkpoint';

export function createWitnessServer(options: WitnessServerOptions): WitnessServer {
  const { folder, logs } = options;
  const now = options.now ?? (() => Math.floor(Date.now() / 1000));
  const { name } = folder.state;
  const signers = [cosigner(name, folder.key.key)];
  const vkey = formatVerifierKey(name, KEY_TYPE_COSIGNATURE, folder.key.key.publicKey.raw);
  let queue: Promise<unknown> = Promise.resolve();

  const logger = options.logger ?? createRequestLogger({ quiet: true });
  const { app } = createStack({
    logger,
    bodyLimit: MAX_BODY,
    errorBody: (err) => ({
      type: TEXT,
      body: `${wireMessageOf(err)}\n`,
    }),
    notFound: (request, reply) => {
      if (pathOf(request.url) !== ADD) return reply.code(404).type(TEXT).send('not found\n');
      return reply.code(405).header('allow', 'POST').type(TEXT).send('POST only\n');
    },
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  const add = async (
    body: Uint8Array,
  ): Promise<{ status: number; text: string; type?: string }> => {
    const request = parseAddCheckpoint(body);
    const origin = request.checkpoint.origin;
    const latest = folder.state.logs.get(origin);
    const result = addCheckpoint(request, { logs, latest, cosigners: signers, now: now() });
    if (!result.ok) {
      if (result.latestSize !== undefined && result.error.code === 'LOG_SIZE_MISMATCH')
        return { status: 409, text: `${result.latestSize}\n`, type: 'text/x.tlog.size' };
      // A checkpoint the log signed (its signature checked) that is not consistent with the
      // one cosigned, a different root at its size or no consistency proof to it, is a fork
      // (C2SP tlog-witness v1.0.0): refused, and written down with the checkpoint as evidence.
      if (result.error.code === 'LOG_INCONSISTENT' || result.error.code === 'LOG_PROOF_INVALID')
        logger.warn(
          `refused ${origin} at size ${request.checkpoint.size} (cosigned: ${latest?.size ?? 0}): ${result.error.message}; the signed checkpoint:\n${request.signedCheckpoint}`,
        );
      throw result.error;
    }
    const record = { ...result.record, checkpoint: request.signedCheckpoint };
    await folder.save({ name, logs: new Map(folder.state.logs).set(origin, record) });
    folder.state.logs.set(origin, record);
    return { status: 200, text: result.cosignatures };
  };

  app.get('/', { exposeHeadRoute: false }, async (_request, reply) =>
    reply.type(TEXT).send(`${vkey}\n`),
  );
  app.post(ADD, async (request, reply) => {
    const body = (request.body as Buffer | undefined) ?? new Uint8Array();
    const turn = queue.then(() => add(body));
    queue = turn.catch(() => undefined);
    const { status, text, type = TEXT } = await turn;
    return reply.code(status).type(type).send(text);
  });

  return {
    app,
    vkey,
    listen: async (port, host) => {
      await app.listen({ port, host });
      const { address, port: bound } = app.server.address() as AddressInfo;
      return `http://${address.includes(':') ? `[${address}]` : address}:${bound}`;
    },
    close: () => app.close(),
  };
}
