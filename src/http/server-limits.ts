/**
 * What a slow or greedy client may hold of a server (stack.ts applies them), and their
 * defaults. Constants only: `cards --help` shows the defaults (src/server/defaults.ts) without
 * loading fastify.
 */
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

/** Requests the admin API's journal keeps, by default (`--journal-size`). */
export const DEFAULT_JOURNAL_SIZE = 1000;
