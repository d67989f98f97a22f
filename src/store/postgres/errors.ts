/**
 * node-postgres outcomes → CardsErrors, in one place: no library message reaches a response
 * body or a user. While serving, a database that is away, a pool that is full or a statement
 * past its timeout is 503 STORE_UNAVAILABLE (the client may retry); at start-up, a
 * configuration that cannot work stops the server with its own code (docs/errors.md).
 */
import { CardsError } from '../../core/errors.js';

/** SQLSTATEs a retry of the same statement may cure (serialization failure, deadlock). */
const RETRYABLE = new Set(['40001', '40P01']);

const UNIQUE_VIOLATION = '23505';

const sqlState = (err: unknown): string | undefined => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
};

export const isRetryable = (err: unknown): boolean => RETRYABLE.has(sqlState(err) ?? '');
export const isUniqueViolation = (err: unknown): boolean => sqlState(err) === UNIQUE_VIOLATION;
/** 42P01: the table is not there (a database no server has migrated yet). */
export const isUndefinedTable = (err: unknown): boolean => sqlState(err) === '42P01';
/** 42P07: the table is there already (another server created it first). */
export const isDuplicateTable = (err: unknown): boolean => sqlState(err) === '42P07';

/**
 * SQLSTATE classes of a refusal of one row's data rather than of the database (PostgreSQL
 * appendix A): 22 data exception (U+0000 in text: 22021), 23 integrity constraint (but a
 * unique violation, 23505, is a lost race the writer tries again), 54 program limit (an index
 * row too large: 54000), P0 raised by a trigger.
 */
const ROW_REFUSALS = /^(22|23|54|P0)[0-9A-Z]{3}$/;

export const isRowRefusal = (err: unknown): boolean =>
  ROW_REFUSALS.test(sqlState(err) ?? '') && !isUniqueViolation(err);

/** One card's row refused while serving: 500 STORE_UNAVAILABLE (trying again cannot help). */
export const rowRefused = (err: unknown): CardsError =>
  new CardsError(
    'STORE_UNAVAILABLE',
    `The card store (PostgreSQL) cannot hold this card (SQLSTATE ${sqlState(err) ?? 'none'}).`,
    { cause: err },
  );

/**
 * A COMMIT that failed this way may have committed all the same: no answer came (the socket
 * broke, the client stopped waiting) or the session was ended around it (class 08 connection
 * exception, class 57 operator intervention). Any other SQLSTATE is the server's answer: rolled
 * back.
 */
export const isCommitInDoubt = (err: unknown): boolean => {
  const code = sqlState(err);
  return code === undefined || !/^[0-9A-Z]{5}$/.test(code) || /^(08|57)/.test(code);
};

/** The server ended the session (a restart, an administrator), or the socket broke. */
export function isConnectionLost(err: unknown): boolean {
  const code = sqlState(err);
  if (code === '57P01' || code === '57P02' || code?.startsWith('08')) return true;
  return /Connection terminated|ECONNRESET|EPIPE/.test((err as Error | null)?.message ?? '');
}

/** The URL with its password replaced by `***` (banners, messages, logs). */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/:[^:@/]*@/, ':***@');
  }
}

/** A failure while serving: 503 STORE_UNAVAILABLE with a message that names no library. */
export function unavailable(err: unknown): CardsError {
  if (err instanceof CardsError) return err;
  const code = sqlState(err);
  const message = (err as Error | null)?.message ?? '';
  let why = 'The card store (PostgreSQL) cannot be reached. Try again later.';
  if (code === '57014' || /timeout/i.test(message))
    why = 'The card store (PostgreSQL) did not answer in time. Try again later.';
  return new CardsError('STORE_UNAVAILABLE', why, { cause: err, status: 503 });
}

/** A failure while opening the store at `url` (start-up, `cards db migrate`, export, import). */
export function openFailure(err: unknown, url: string): CardsError {
  if (err instanceof CardsError) return err;
  const where = redactUrl(url);
  const parsed = new URL(url);
  const host = `${parsed.hostname}:${parsed.port || 5432}`;
  const database = decodeURIComponent(parsed.pathname.slice(1)) || parsed.username;
  const code = sqlState(err);
  if (code === '28P01' || code === '28000')
    return new CardsError(
      'STORE_AUTH_FAILED',
      `PostgreSQL at ${host} refused the user "${decodeURIComponent(parsed.username)}": wrong password or not allowed (${where}).`,
      { cause: err, hint: 'Check the user and password in the --store URL.' },
    );
  if (code === '3D000')
    return new CardsError(
      'STORE_DATABASE_UNKNOWN',
      `PostgreSQL at ${host} has no database "${database}" (${where}).`,
      { cause: err, hint: `Create it first: createdb ${database}` },
    );
  // No SQLSTATE (ECONNREFUSED, ENOTFOUND, a timeout), a connection exception, or "starting up".
  const net =
    code === undefined || !/^[0-9A-Z]{5}$/.test(code) || code.startsWith('08') || code === '57P03';
  if (net)
    return new CardsError(
      'STORE_UNREACHABLE',
      `Cannot reach PostgreSQL at ${host} (${code ?? 'no answer'}): ${where}.`,
      { cause: err, hint: 'Check the host and port, and that the database server is running.' },
    );
  return new CardsError(
    'STORE_UNAVAILABLE',
    `PostgreSQL at ${host} refused to open the store (SQLSTATE ${code}).`,
    { cause: err },
  );
}

/** A `postgres://` or `postgresql://` URL with a host, or STORE_URL_INVALID. */
export function checkDatabaseUrl(url: string): URL {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || !/^postgres(ql)?:$/.test(parsed.protocol) || parsed.hostname === '')
    throw new CardsError(
      'STORE_URL_INVALID',
      `"${redactUrl(url)}" is not a PostgreSQL URL (postgres://USER:PASSWORD@HOST:PORT/DATABASE).`,
    );
  return parsed;
}
