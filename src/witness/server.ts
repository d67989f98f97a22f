/**
 * `cards witness serve`'s HTTP server (C2SP tlog-witness v1.0.0): POST /add-checkpoint, and
 * GET / with the witness's verifier key. Requests are handled one at a time, so the check of the
 * old size and the persisted update are one atomic step (the spec's race A/B cannot happen),
 * and the state is on disk before the cosignature is sent.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CardsError, wireErrorOf } from '../core/errors.js';
import { escapeTerminal } from '../core/terminal-text.js';
import { cosigner, type Cosigner } from '../log/cosignature.js';
import { KEY_TYPE_COSIGNATURE, formatVerifierKey, type NoteVerifier } from '../log/note-keys.js';
import { addCheckpoint, parseAddCheckpoint } from '../log/witness.js';
import type { WitnessFolder } from './state.js';

export const MAX_BODY = 64 * 1024;

export interface WitnessServerOptions {
  readonly folder: WitnessFolder;
  /** Trusted log keys by origin. */
  readonly logs: ReadonlyMap<string, readonly NoteVerifier[]>;
  /** POSIX seconds; the clock is a parameter so tests can pin it. */
  readonly now?: () => number;
}

export interface WitnessServer {
  readonly server: Server;
  readonly vkey: string;
  listen(port: number, host: string): Promise<string>;
  close(): Promise<void>;
}

export function createWitnessServer(options: WitnessServerOptions): WitnessServer {
  const { folder, logs } = options;
  const now = options.now ?? (() => Math.floor(Date.now() / 1000));
  const { name } = folder.state;
  const signer: Cosigner = cosigner(name, folder.key.key);
  const vkey = formatVerifierKey(name, KEY_TYPE_COSIGNATURE, folder.key.key.publicKey.raw);
  let queue: Promise<unknown> = Promise.resolve();

  const handleAdd = async (body: Uint8Array, res: ServerResponse): Promise<void> => {
    const request = parseAddCheckpoint(body);
    const origin = request.checkpoint.origin;
    const latest = folder.state.logs.get(origin);
    const result = addCheckpoint(request, { logs, latest, cosigners: [signer], now: now() });
    if (!result.ok) {
      if (result.latestSize !== undefined && result.error.code === 'LOG_SIZE_MISMATCH') {
        return send(res, 409, `${result.latestSize}\n`, 'text/x.tlog.size');
      }
      throw result.error;
    }
    const logsAfter = new Map(folder.state.logs);
    logsAfter.set(origin, { ...result.record, checkpoint: request.signedCheckpoint });
    await folder.save({ name, logs: logsAfter });
    folder.state.logs.set(origin, logsAfter.get(origin)!);
    send(res, 200, result.cosignatures);
  };

  const server = createServer((req, res) => {
    const done = (err: unknown): void => {
      const error = wireErrorOf(err instanceof CardsError ? err : new CardsError('INTERNAL'));
      if (error.code === 'INTERNAL')
        process.stderr.write(`witness: ${escapeTerminal(String(error.cause ?? err))}\n`);
      send(res, error.status, `${error.message}\n`);
    };
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/') return send(res, 200, `${vkey}\n`);
    if (path !== '/add-checkpoint') return send(res, 404, 'not found\n');
    if (req.method !== 'POST') {
      res.setHeader('allow', 'POST');
      return send(res, 405, 'POST only\n');
    }
    readBody(req)
      .then((body) => {
        const turn = queue.then(() => handleAdd(body, res));
        queue = turn.catch(() => undefined);
        return turn;
      })
      .catch(done);
  });

  return {
    server,
    vkey,
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          const { address, port: bound } = server.address() as AddressInfo;
          resolve(`http://${address.includes(':') ? `[${address}]` : address}:${bound}`);
        });
      }),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}

function send(
  res: ServerResponse,
  status: number,
  body: string,
  type = 'text/plain; charset=utf-8',
): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function readBody(req: IncomingMessage): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > MAX_BODY) {
        chunks.length = 0;
        reject(new CardsError('BODY_TOO_LARGE')); // the rest is drained, then 413 is sent
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (size <= MAX_BODY) resolve(new Uint8Array(Buffer.concat(chunks)));
    });
    req.on('error', reject);
  });
}
