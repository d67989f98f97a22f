/**
 * What a slow or greedy client may hold of a server (stack.ts applies them), and their
 * defaults. Constants only: `cards --help` shows the defaults (src/server/defaults.ts) without
 * loading fastify.
 */
export interface ServerLimits {
  /** Open connections served normally; those above get 503. Default 1024. */
  readonly maxConnections: number;
  /**
   * Open connections held at all: one past this is closed as it is accepted (node's
   * `server.maxConnections`), before it can hold a file descriptor for a timeout's length.
   * Default twice maxConnections, so the 503 of those above maxConnections still reaches them.
   */
  readonly heldConnections: number;
  /** Time to receive a whole request, headers and body, in ms. Default 30 s. */
  readonly requestTimeoutMs: number;
  /** Time to receive the headers, in ms (≤ requestTimeoutMs). Default 20 s. */
  readonly headersTimeoutMs: number;
  /** An idle keep-alive connection is closed after this, in ms. Default 5 s. */
  readonly keepAliveTimeoutMs: number;
}

/** The defaults; the connections held follow from those served (connectionLimits). */
export const DEFAULT_LIMITS: Omit<ServerLimits, 'heldConnections'> = {
  maxConnections: 1024,
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 20_000,
  keepAliveTimeoutMs: 5_000,
};

/** Requests the admin API's journal keeps, by default (`--journal-size`). */
export const DEFAULT_JOURNAL_SIZE = 1000;

/**
 * File descriptors a server keeps for itself whatever its connections hold: its store and
 * journal, the log's tiles as they are written, worker threads, the modules it loads on first
 * use (a token's verifier, a schema compiler). When they run out, an open(2) fails with EMFILE,
 * and a module whose load failed so stays failed for the process's life (node caches the
 * failed resolution): every request needing it would be a 500 until a restart.
 */
const RESERVED_DESCRIPTORS = 128;

/**
 * The connection limits a process may keep: `maxConnections` served and twice that held, both
 * lowered so that the connections held leave RESERVED_DESCRIPTORS of `openFiles` (the process's
 * limit of open files, RLIMIT_NOFILE; undefined when unknown or unlimited) to the server.
 */
export function connectionLimits(
  maxConnections: number,
  openFiles: number | undefined,
): Pick<ServerLimits, 'maxConnections' | 'heldConnections'> {
  const room = openFiles === undefined ? Infinity : openFiles - RESERVED_DESCRIPTORS;
  const held = Math.max(1, Math.min(2 * maxConnections, room));
  return { maxConnections: Math.min(maxConnections, held), heldConnections: held };
}
