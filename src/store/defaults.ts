/**
 * The engines' tuning defaults, one place for each: an engine not told otherwise uses them, and
 * src/server/defaults.ts names them for the server and `cards serve --help`. Imports nothing:
 * `cards --help` loads this file and no engine or database driver.
 */

/** JSON: fold the journal into the store file past this many bytes (16 MiB). */
export const DEFAULT_COMPACT_BYTES = 16 * 1024 * 1024;
/** PostgreSQL: connections at most; more requests wait, then get 503. */
export const DEFAULT_POOL_SIZE = 10;
/** PostgreSQL: the longest statement, and the longest wait for a connection, in ms. */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 5000;

/**
 * A store target that is no file name: any `scheme://`, and the engines' own schemes however
 * they go on (`memory:`, `postgres:…`), so that a mistyped PostgreSQL URL is refused as one
 * instead of becoming a JSON store file of that name.
 */
export const isStoreUrl = (target: string): boolean =>
  /^([a-z][a-z0-9+.-]*:\/\/|(postgres|postgresql|memory):)/i.test(target);
