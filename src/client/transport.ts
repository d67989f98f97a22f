/**
 * One HTTP exchange over node:http(s) with a keep-alive agent per client.
 *
 * Why not the global fetch: measured against a local `cards serve` on this project's 2-core
 * machines, fetch (undici and its web streams) spends ~0.67 ms of CPU per request where
 * node:http spends ~0.14 ms, and bulk work (`cards seed`, 10,000 cards under 15 s next to the
 * server on the same cores) cannot afford the difference. Network failures and deadlines reject
 * with the underlying error; statuses are the caller's business.
 */
import http from 'node:http';
import https from 'node:https';
import { LIMITS } from '../core/limits.js';
import { sizeName } from './bounded-body.js';

export interface Exchange {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

export interface Transport {
  send(method: string, url: URL, headers: Record<string, string>, body?: string): Promise<Exchange>;
  close(): void;
}

export function createTransport(options: { timeoutMs: number; maxSockets?: number }): Transport {
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 64 };
  const agents = { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) };
  const deadlines = deadlineSweeper(options.timeoutMs);
  return {
    send(method, url, headers, body) {
      const secure = url.protocol === 'https:';
      const request = secure ? https.request : http.request;
      return new Promise<Exchange>((resolve, reject) => {
        const req = request(
          url,
          {
            method,
            agent: secure ? agents.https : agents.http,
            headers:
              body === undefined
                ? headers
                : { ...headers, 'content-length': Buffer.byteLength(body) },
          },
          (res) => {
            const chunks: Buffer[] = [];
            let size = 0;
            res.on('data', (chunk: Buffer) => {
              size += chunk.byteLength;
              if (size <= LIMITS.answerMax) chunks.push(chunk);
              else req.destroy(new AnswerTooLargeError());
            });
            res.on('error', reject);
            // Cut off mid-answer (a deadline): reject with why, since no 'end' will come.
            res.on('close', () => {
              if (!res.complete) reject(req.errored ?? new Error('connection closed mid-answer'));
            });
            res.on('end', () =>
              resolve({
                status: res.statusCode ?? 0,
                headers: res.headers,
                body: Buffer.concat(chunks).toString('utf8'),
              }),
            );
          },
        );
        deadlines.watch(req);
        req.on('close', () => deadlines.forget(req));
        req.on('error', reject);
        req.end(body);
      });
    },
    close() {
      deadlines.stop();
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

/** An answer longer than any the card routes give (LIMITS.answerMax): given up on, not read. */
export class AnswerTooLargeError extends Error {
  override readonly name = 'AnswerTooLargeError';
  constructor() {
    super(
      `answered more than ${sizeName(LIMITS.answerMax)}, more than any answer of a Cards service`,
    );
  }
}

/** A request past its whole-request deadline: `code` as node names a timed-out socket. */
export class DeadlineError extends Error {
  override readonly name = 'DeadlineError';
  readonly code = 'ETIMEDOUT';

  constructor(seconds: number) {
    super(`no answer within ${seconds} s`);
  }
}

/**
 * Whole-request deadlines: node's `timeout` option is an idle timeout, which
 * a server trickling a byte now and then never trips. One sweep timer for all requests in flight
 * rather than a timer each, which would cost bulk work (`cards seed`) about a tenth of its time.
 */
function deadlineSweeper(timeoutMs: number) {
  const inFlight = new Map<http.ClientRequest, number>();
  let timer: NodeJS.Timeout | undefined;
  const sweep = (): void => {
    const now = Date.now();
    for (const [req, deadline] of inFlight) {
      if (deadline > now) continue;
      inFlight.delete(req);
      const seconds = Math.round(timeoutMs / 100) / 10;
      req.destroy(new DeadlineError(seconds));
    }
    if (inFlight.size === 0) stop();
  };
  const stop = (): void => {
    if (timer) clearInterval(timer);
    timer = undefined;
  };
  return {
    watch(req: http.ClientRequest): void {
      if (timeoutMs <= 0) return;
      inFlight.set(req, Date.now() + timeoutMs);
      if (!timer) timer = setInterval(sweep, Math.min(250, timeoutMs)).unref();
    },
    forget(req: http.ClientRequest): void {
      inFlight.delete(req);
      if (inFlight.size === 0) stop();
    },
    stop,
  };
}
