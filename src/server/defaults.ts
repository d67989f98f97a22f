/**
 * The defaults of a server, and the URL a client reaches a local `cards serve` at by default.
 * One place for each: the server reads them, and the CLI's flag declarations show them as their
 * `.default()` (src/cli/commands/serve), so `--help` and the server cannot drift apart.
 * Imports nothing: `cards --help` loads this file.
 */
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8080;
/** Where a client finds a local `cards serve` started with no flags. */
export const DEFAULT_URL = `http://${DEFAULT_HOST}:${DEFAULT_PORT}`;
/** The JSON store file, relative to the working folder. */
export const DEFAULT_DB = './cards.json';
export const DEFAULT_MAX_CONNECTIONS = 1024;
export const DEFAULT_REQUEST_TIMEOUT_SECONDS = 30;
/** Fold the journal into the store file past this many bytes (16 MiB). */
export const DEFAULT_COMPACT_BYTES = 16 * 1024 * 1024;
/** PostgreSQL: connections at most; more requests wait, then get 503. */
export const DEFAULT_POOL_SIZE = 10;
/** PostgreSQL: the longest statement, and the longest wait for a connection, in ms. */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 5000;
/** The longest wait before an acknowledged card is integrated into the log, in ms. */
export const DEFAULT_LOG_INTERVAL_MS = 500;
/** Token clock skew allowed beyond the deployed service's rules, in seconds. */
export const DEFAULT_CLOCK_SKEW_SECONDS = 0;

/** Any `scheme://`: a store URL (PostgreSQL, or refused), never a file name. */
export const isStoreUrl = (target: string): boolean => /^[a-z][a-z0-9+.-]*:\/\//i.test(target);
