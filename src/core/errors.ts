/**
 * The one error type of the project and the one table of its codes.
 *
 * Every refusal anywhere (core, registry, HTTP, CLI) is a `CardsError` whose `code` is a key of
 * `ERRORS`. Each entry gives the numeric wire code (the deployed service's, wire-facts section 4;
 * codes the service does not publish are ours and documented in docs/errors.md), the HTTP status and
 * the CLI exit status. `Record<ErrorCode, …>` makes an unmapped code a compile error.
 * Never throws anything else for bad input; never imports I/O.
 */

/** CLI exit statuses (docs/errors.md, "Exit statuses"). */
export const EXIT = {
  ok: 0,
  error: 1,
  usage: 2,
  notFound: 3,
  refused: 4,
  verificationFailed: 5,
  unreachable: 6,
  unauthorized: 7,
  logInconsistent: 8,
  storeConfig: 9,
  /** Ctrl-C at a prompt: 128 + SIGINT, as a shell reports a command stopped by Ctrl-C. */
  interrupted: 130,
} as const;
export type ExitStatus = (typeof EXIT)[keyof typeof EXIT];

export interface ErrorInfo {
  /** Numeric code as the deployed service sends it (string in the spec-literal profile). */
  readonly wire: number;
  /** HTTP status when this error leaves the server. */
  readonly status: number;
  /** Another status it is sent with in some cases (STORE_UNAVAILABLE: 503 for a store away). */
  readonly alsoStatus?: 503;
  /** Process exit status when this error ends a CLI command. */
  readonly exit: ExitStatus;
  /** Default message (the deployed service's text where it has one). */
  readonly message: string;
}

const e = (wire: number, status: number, exit: ExitStatus, message: string): ErrorInfo => ({
  wire,
  status,
  exit,
  message,
});
const {
  error,
  usage,
  notFound,
  refused,
  verificationFailed,
  unreachable,
  unauthorized,
  logInconsistent,
  storeConfig,
  interrupted,
} = EXIT;

export const ERRORS = {
  // Service-level (10xxx). 10000 and 10001 are the deployed service's; the rest are ours.
  // 10000 and 10006 reach the CLI as a service's 5xx: "service failing", exit 6 (docs/errors.md).
  INTERNAL: e(10000, 500, unreachable, 'Request serving internal error. Try again later.'),
  CARD_NOT_FOUND: e(10001, 404, notFound, 'Requested card entity not found.'),
  ROUTE_NOT_FOUND: e(10002, 404, usage, 'Route not found.'),
  METHOD_NOT_ALLOWED: e(10003, 405, usage, 'Method not allowed on this route.'),
  BODY_TOO_LARGE: e(10004, 413, refused, 'Request body is too large (limit 64 KiB).'),
  SERVER_BUSY: e(10005, 503, unreachable, 'Too many connections. Try again later.'),
  // 500 when the disk refused a write; 503 when a database is away or its pool is full (a
  // client may retry at once).
  STORE_UNAVAILABLE: {
    ...e(10006, 500, unreachable, 'The card store could not be written. Try again later.'),
    alsoStatus: 503,
  },
  UNSUPPORTED_MEDIA_TYPE: e(10007, 415, refused, 'Request body must be application/json.'),
  HTTP_MALFORMED: e(10008, 400, refused, 'Malformed HTTP request.'),
  REQUEST_TIMEOUT: e(10009, 408, unreachable, 'The request was not received in time.'),
  HEADERS_TOO_LARGE: e(10010, 431, refused, 'Request headers are too large.'),
  STORE_READ_ONLY: e(
    10011,
    503,
    unreachable,
    'The card store stopped accepting writes after a write it could not undo. Try again later.',
  ),
  // Admin API (issue 15): ours.
  IMPORT_NOT_EMPTY: e(
    10101,
    409,
    refused,
    'The registry is not empty; import with ?append=true to add to it, or reset it first.',
  ),
  IDENTITY_NOT_FOUND: e(10102, 404, notFound, 'No card has this identity.'),

  // Authentication (203xx). 20304 is the deployed service's; the rest are ours.
  AUTH_MISSING: e(20300, 401, unauthorized, 'Authorization header is missing.'),
  AUTH_SCHEME: e(20301, 401, unauthorized, 'Authorization scheme is not the expected one.'),
  TOKEN_MALFORMED: e(20302, 401, unauthorized, 'Token is malformed.'),
  TOKEN_SIGNATURE: e(
    20303,
    401,
    unauthorized,
    'Token signature is invalid or its key is not trusted.',
  ),
  TOKEN_EXPIRED: e(20304, 401, unauthorized, 'Token has expired.'),
  TOKEN_NOT_YET_VALID: e(20305, 401, unauthorized, 'Token is not valid yet.'),
  TOKEN_ALGORITHM: e(20306, 401, unauthorized, 'Token algorithm is not allowed.'),
  TOKEN_CLAIMS: e(20307, 401, unauthorized, 'Token claims are missing or invalid.'),
  // Admin token (issue 15): ours.
  ADMIN_AUTH_MISSING: e(
    20320,
    401,
    unauthorized,
    'Admin token is missing: send Authorization: Bearer <admin token>.',
  ),
  ADMIN_TOKEN_INVALID: e(20321, 401, unauthorized, 'Admin token is not valid.'),
  ADMIN_TOKEN_ON_CARD_ROUTE: e(
    20322,
    401,
    unauthorized,
    'The admin token does not authorize card routes; send a card token.',
  ),

  // Request shape (30xxx). 30001 is the deployed service's; 30002 is ours.
  BODY_PARSE: e(
    30001,
    400,
    refused,
    'Request body parsing error. Invalid JSON, field name or field type.',
  ),
  CARD_ID_INVALID: e(30002, 400, refused, 'Card ID is not a valid ID (64 hexadecimal characters).'),
  // Admin requests (issue 15): ours.
  QUERY_INVALID: e(30100, 400, refused, 'A query parameter is invalid.'),
  RESET_NOT_CONFIRMED: e(30101, 400, refused, 'Reset needs the body {"confirm":"reset"}.'),
  IMPORT_INVALID: e(30102, 400, refused, 'An import line is not a valid stored card record.'),

  // Card validation (40xxx): the deployed service's codes and texts.
  SNAPSHOT_EMPTY: e(40001, 400, refused, 'Content snapshot is empty.'),
  SNAPSHOT_NOT_BASE64: e(40002, 400, refused, 'Content snapshot is not a base64-encoded string.'),
  SNAPSHOT_NOT_JSON: e(
    40003,
    400,
    refused,
    'Content snapshot is not a base64-encoded JSON message.',
  ),
  SIGNATURE_MISSING: e(40006, 400, refused, 'Signature is missing in signature entries.'),
  SIGNER_INVALID: e(
    40007,
    400,
    refused,
    'Signer is missing or is incorrect in one of signature entries.',
  ),
  SELF_SIGNATURE_MISSING: e(40008, 400, refused, 'Self signature is missing for the Card.'),
  VERSION_INVALID: e(40011, 400, refused, 'Card version must be 5.0.'),
  PUBLIC_KEY_NOT_BASE64: e(40012, 400, refused, 'Public key is not a base64-encoded string.'),
  PREVIOUS_ID_INVALID: e(40014, 400, refused, 'Previous Card ID is not a valid ID.'),
  PREVIOUS_NOT_FOUND: e(40015, 400, refused, 'Previous Card ID does not exist.'),
  IDENTITY_TOO_LONG: e(40017, 400, refused, "Identity is incorrect. It mustn't exceed 1024 bytes."),
  CREATED_AT_INVALID: e(40018, 400, refused, 'Creation time is incorrect.'),
  EXTRA_SNAPSHOT_INVALID: e(40019, 400, refused, 'Extra content snapshot decoding error.'),
  SIGNATURE_NOT_BASE64: e(40020, 400, refused, 'Signature is not a base64-encoded string.'),
  SIGNATURE_INVALID: e(
    40021,
    400,
    verificationFailed,
    'Signature verification failed for one of signature entries.',
  ),
  SIGNATURES_EMPTY: e(40022, 400, refused, 'Signature list must contain at least self signature.'),
  SIGNATURES_TOO_MANY: e(40023, 400, refused, 'Signature list must contain at most eight entries.'),
  EXTRA_SNAPSHOT_TOO_LONG: e(
    40026,
    400,
    refused,
    'Extra snapshot is too long for one of signature entries. It must not exceed 1024 bytes.',
  ),
  SNAPSHOT_NOT_UNIQUE: e(40027, 400, refused, 'Card content snapshot is not unique.'),
  PUBLIC_KEY_TOO_LONG: e(40029, 400, refused, 'Public key exceeds 4096 bytes.'),
  PUBLIC_KEY_TOO_SHORT: e(40030, 400, refused, 'Public key is less than 16 bytes.'),
  SELF_SIGNATURE_DUPLICATE: e(40031, 400, refused, 'Self signature must be only one.'),
  PREVIOUS_IDENTITY_MISMATCH: e(
    40032,
    400,
    refused,
    "Previous Card identity doesn't match current Card one.",
  ),
  IDENTITY_EMPTY: e(40033, 400, refused, 'Identity is empty.'),
  IDENTITY_MISMATCH: e(
    40034,
    400,
    refused,
    'Identity is incorrect. It must match request identity provided in JWT.',
  ),
  SIGNER_EMPTY: e(40035, 400, refused, 'Signer is empty in one of signature entries.'),
  SIGNER_TOO_LONG: e(
    40036,
    400,
    refused,
    "Signer is too long in one of signature entries. It mustn't exceed 1024 characters.",
  ),
  PREVIOUS_SUPERSEDED: e(40037, 400, refused, 'Previous Card exists already.'),
  SEARCH_EMPTY: e(40200, 400, refused, 'Identity search parameter cannot be empty.'),
  SEARCH_TOO_MANY: e(40300, 400, refused, 'Identities to search amount limited to 50.'),
  CHAIN_REVOKED: e(40310, 403, refused, 'Deleted card can not be deleted.'),
  PUBLIC_KEY_NOT_EMPTY: e(40410, 400, refused, 'Public key must be empty.'),
  REVOKE_PREVIOUS_MISSING: e(40420, 400, refused, 'Empty card ID to delete (previous Card ID).'),
  // Ours: a card key of a type whose self signature cannot be checked (README "Cryptography").
  KEY_TYPE_UNSUPPORTED: e(
    40090,
    400,
    refused,
    'The card key type cannot sign its card or is not supported.',
  ),

  // Keyknox (50xxx): e3kit's key backups and group tickets. 50010 is the deployed service's
  // (the stock clients compare it as a number); the rest are ours.
  KEYKNOX_VALUE_INVALID: e(50001, 400, refused, 'Keyknox meta and value must be non-empty base64.'),
  KEYKNOX_ADDRESS_INVALID: e(
    50002,
    400,
    refused,
    'Keyknox root, path, key and identity must be non-empty strings of at most 1024 bytes.',
  ),
  KEYKNOX_IDENTITIES_INVALID: e(
    50003,
    400,
    refused,
    'Keyknox identities must be a list of identities, at most 1024 readers an entry.',
  ),
  KEYKNOX_CONFLICT: e(
    50010,
    409,
    refused,
    'Invalid previous hash: the entry changed since it was pulled. Pull it and push again.',
  ),

  // Pythia (60xxx): brainkeys and breach-proof passwords. 60007 is the deployed service's (e3kit
  // retries a brainkey once, 2 s later, on exactly that number); the rest are ours.
  PYTHIA_PASSWORD_INVALID: e(
    60001,
    400,
    refused,
    'blinded_password must be base64 of a compressed BLS12-381 G1 point (49 bytes).',
  ),
  PYTHIA_SALT_INVALID: e(60002, 400, refused, 'user_id must be base64 of 1 to 128 bytes.'),
  PYTHIA_VERSION_UNKNOWN: e(60003, 400, refused, 'This server has no Pythia key of that version.'),
  PYTHIA_BRAINKEY_ID_INVALID: e(
    60004,
    400,
    refused,
    'brainkey_id must be a string of at most 1024 bytes.',
  ),
  PYTHIA_THROTTLED: e(60007, 429, unreachable, 'Too many Pythia requests. Retry in 2 seconds.'),

  // Local (90xxx): raised by the CLI and key handling, never sent by the server.
  USAGE: e(90001, 400, usage, 'Invalid command-line usage.'),
  KEY_FORMAT: e(90002, 400, usage, 'Key is not in an accepted format.'),
  FILE_EXISTS: e(90003, 400, refused, 'File exists already.'),
  FILE_NOT_FOUND: e(90004, 400, notFound, 'File not found.'),
  UNREACHABLE: e(90005, 503, unreachable, 'The service could not be reached.'),
  VERIFICATION_FAILED: e(90006, 400, verificationFailed, 'Card verification failed.'),
  STORE_CORRUPT: e(90007, 500, error, 'The store file cannot be read.'),
  STORE_LOCKED: e(90008, 500, error, 'Another server is using this store.'),
  CONFIG_INVALID: e(90009, 400, usage, 'Configuration file is invalid.'),
  SERVICE_REFUSED: e(90010, 400, refused, 'The service refused the request.'),
  CREDENTIALS_MISSING: e(90011, 401, unauthorized, 'No token or app key to authenticate with.'),
  // Opening a PostgreSQL store (`--store postgres://…`): each stops start-up with exit status 9.
  STORE_URL_INVALID: e(90012, 400, storeConfig, 'The store URL is not a PostgreSQL URL.'),
  STORE_AUTH_FAILED: e(90013, 500, storeConfig, 'PostgreSQL refused the user or password.'),
  STORE_DATABASE_UNKNOWN: e(90014, 500, storeConfig, 'The PostgreSQL database does not exist.'),
  STORE_UNREACHABLE: e(90015, 500, storeConfig, 'PostgreSQL cannot be reached.'),
  STORE_NOT_EMPTY: e(90016, 400, refused, 'The store holds cards already (import: --append).'),
  NOT_A_SERVICE: e(90019, 502, unreachable, 'The URL does not answer as a Cards service.'),

  // Transparency log (91xxx): ours. Statuses are the ones C2SP tlog-witness v1.0.0 gives.
  LOG_NOTE_MALFORMED: e(91001, 400, refused, 'Signed note, checkpoint or proof is malformed.'),
  LOG_SIGNATURE_INVALID: e(
    91002,
    403,
    verificationFailed,
    'No signature from a trusted log key verifies.',
  ),
  LOG_PROOF_INVALID: e(91003, 422, verificationFailed, 'The Merkle proof does not verify.'),
  LOG_INCONSISTENT: e(
    91004,
    409,
    logInconsistent,
    'The log forked or rewound: this checkpoint is not consistent with one seen before.',
  ),
  LOG_UNKNOWN_ORIGIN: e(91005, 404, notFound, 'No trusted key is configured for this log origin.'),
  LOG_SIZE_MISMATCH: e(
    91006,
    409,
    refused,
    'The old size does not match the latest checkpoint the witness cosigned.',
  ),
  // A person stopped the command at a question: not an error, and nothing was changed.
  CANCELLED: e(90017, 400, interrupted, 'Cancelled; nothing was changed.'),
  DECLINED: e(90018, 400, error, 'Not confirmed; nothing was changed.'),
  LOG_NOT_INTEGRATED: e(
    91007,
    404,
    notFound,
    'The card is not in a signed checkpoint of the log yet. Retry in a second.',
  ),
  LOG_TILE_NOT_FOUND: e(91008, 404, notFound, 'The log has no such tile or entry bundle.'),
  LOG_UNEXPECTED_KEY: e(
    91009,
    400,
    verificationFailed,
    'The log holds a card of the identity with a key that was not expected.',
  ),
  LOG_DISABLED: e(91010, 404, notFound, 'This server keeps no transparency log.'),
} as const satisfies Record<string, ErrorInfo>;

export type ErrorCode = keyof typeof ERRORS;

export class CardsError extends Error {
  override readonly name = 'CardsError';
  readonly code: ErrorCode;
  /** A next step for a person ("run `cards keygen --identity alice` first"). */
  readonly hint: string | undefined;
  /** The HTTP status: the code's usual one, or its `alsoStatus` when asked for (errors table). */
  readonly status: number;

  constructor(
    code: ErrorCode,
    message?: string,
    options?: { hint?: string; cause?: unknown; status?: 503 },
  ) {
    super(message ?? ERRORS[code].message, options?.cause ? { cause: options.cause } : undefined);
    this.code = code;
    this.hint = options?.hint;
    const info: ErrorInfo = ERRORS[code];
    this.status =
      options?.status !== undefined && options.status === info.alsoStatus
        ? options.status
        : info.status;
  }

  get info(): ErrorInfo {
    return ERRORS[this.code];
  }
}

export const isCardsError = (err: unknown): err is CardsError => err instanceof CardsError;

/** Finds the code whose wire number is `wire` (for clients reading an Error object). */
export function codeForWire(wire: number | string): ErrorCode | undefined {
  const n = typeof wire === 'string' ? Number(wire) : wire;
  for (const code of Object.keys(ERRORS) as ErrorCode[]) if (ERRORS[code].wire === n) return code;
  return undefined;
}
