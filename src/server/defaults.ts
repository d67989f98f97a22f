/**
 * The defaults of a server, and the URL a client reaches a local `cards serve` at by default.
 * One place for each: the server reads them, and the CLI's flag declarations show them as their
 * `.default()` (src/cli/commands/serve), so `--help` and the server cannot drift apart. The
 * connection limits are the HTTP layer's own defaults (src/http/server-limits.ts), the store's
 * tuning the engines' own (src/store/defaults.ts), named here. Imports constants only:
 * `cards --help` loads this file.
 */
import { DEFAULT_LIMITS } from '../http/server-limits.js';

export {
  DEFAULT_COMPACT_BYTES,
  DEFAULT_POOL_SIZE,
  DEFAULT_STATEMENT_TIMEOUT_MS,
} from '../store/defaults.js';

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8080;
/** Where a client finds a local `cards serve` started with no flags. */
export const DEFAULT_URL = `http://${DEFAULT_HOST}:${DEFAULT_PORT}`;
/** The host listens on loopback addresses only (127.0.0.0/8, ::1, localhost). */
export const isLoopbackHost = (host: string): boolean =>
  /^127(?:\.\d{1,3}){3}$/.test(host) || ['::1', '[::1]', 'localhost'].includes(host.toLowerCase());

/**
 * Where a server listens to be reached at `url` (a profile's), when that is a loopback http URL
 * (`http://127.0.0.1:9090`, `http://localhost:9090`, `http://[::1]:9090`); undefined otherwise.
 */
export function loopbackAddress(url: string): { host: string; port: number } | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (parsed.protocol !== 'http:' || !isLoopbackHost(host)) return undefined;
  return { host, port: parsed.port === '' ? 80 : Number(parsed.port) };
}

/** The JSON store file, relative to the working folder. */
export const DEFAULT_DB = './cards.json';
/** Open connections served at once; one above gets 503. */
export const DEFAULT_MAX_CONNECTIONS = DEFAULT_LIMITS.maxConnections;
/** The time a client has to send a whole request. */
export const DEFAULT_REQUEST_TIMEOUT_SECONDS = DEFAULT_LIMITS.requestTimeoutMs / 1000;
/** The longest wait before an acknowledged card is integrated into the log, in ms. */
export const DEFAULT_LOG_INTERVAL_MS = 500;
/** Token clock skew allowed beyond the deployed service's rules, in seconds. */
export const DEFAULT_CLOCK_SKEW_SECONDS = 0;
/** Requests the admin API's request journal keeps. */
export { DEFAULT_JOURNAL_SIZE } from '../http/server-limits.js';

export { isStoreUrl } from '../store/defaults.js';
/** Pythia password key versions kept (`--pythia-versions`). */
export const DEFAULT_PYTHIA_VERSIONS = 1;
/**
 * Pythia brainkeys per identity (`--pythia-throttle`): a burst of 2, one more every 500 ms, so
 * e3kit's two brainkeys back to back pass and its one retry 2 s later always does.
 */
export const DEFAULT_PYTHIA_THROTTLE = '2/500';
