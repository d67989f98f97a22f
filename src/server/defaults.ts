/**
 * The defaults of a local `cards serve`, and the URL a client reaches it at by default. One
 * place for each, so the server's address and the CLI's default `--url` cannot drift apart.
 * Imports nothing: `cards --help` loads this file and no other.
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

/** Any `scheme://`: a store URL (PostgreSQL, or refused), never a file name. */
export const isStoreUrl = (target: string): boolean => /^[a-z][a-z0-9+.-]*:\/\//i.test(target);
