/**
 * Server hardening that costs nothing per request: timeouts for slow clients and a cap on open
 * connections. A connection over the cap is not dropped: its first request is answered 503
 * SERVER_BUSY (the Error object) and the connection closed, so a client learns why.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export interface ServerLimits {
  /** Open connections served normally; those above get 503. Default 1024. */
  readonly maxConnections: number;
  /** Time to receive a whole request, headers and body, in ms. Default 30 s. */
  readonly requestTimeoutMs: number;
  /** Time to receive the headers, in ms (≤ requestTimeoutMs). Default 20 s. */
  readonly headersTimeoutMs: number;
  /** An idle keep-alive connection is closed after this, in ms. Default 5 s. */
  readonly keepAliveTimeoutMs: number;
}

export const DEFAULT_LIMITS: ServerLimits = {
  maxConnections: 1024,
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 20_000,
  keepAliveTimeoutMs: 5_000,
};

/** Node's own options for these limits (http.createServer). */
export function httpServerOptions(limits: ServerLimits): {
  requestTimeout: number;
  headersTimeout: number;
  keepAliveTimeout: number;
  connectionsCheckingInterval: number;
  requireHostHeader: boolean;
} {
  const headersTimeout = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  return {
    requestTimeout: limits.requestTimeoutMs,
    headersTimeout,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // Node checks the two timeouts on this interval; keep the overshoot small.
    connectionsCheckingInterval: Math.max(100, Math.min(5_000, Math.floor(headersTimeout / 4))),
    // Node answers an HTTP/1.1 request without Host with a bare 400; app.ts refuses it instead,
    // with the Error object.
    requireHostHeader: false,
  };
}

/** Counts connections; returns whether a socket is over the cap. */
export function trackConnections(server: Server, max: number): (socket: Socket) => boolean {
  const over = new WeakSet<Socket>();
  let open = 0;
  server.on('connection', (socket: Socket) => {
    open++;
    if (open > max) over.add(socket);
    socket.once('close', () => {
      open--;
    });
  });
  return (socket) => over.has(socket);
}
