/**
 * The wire table: every code a server sends (`cards serve`, its log routes, `cards witness
 * serve`), with its number in the Error object `{code, message}` (spec 2.5), its HTTP status and
 * its default message. The deployed service's codes and texts are its own (docs/errors.md); the
 * others are ours, in the blocks docs/errors.md gives:
 * - 10xxx the service (10000, 10001 the deployed service's), 101xx the admin API;
 * - 203xx authentication (20304 the deployed service's), 2032x the admin token;
 * - 30xxx the request's shape (30001 the deployed service's), 301xx the admin API's requests;
 * - 40xxx card validation (the deployed service's), 4009x ours;
 * - 50xxx Keyknox (50010 the deployed service's), 60xxx Pythia (60007 the deployed service's);
 * - 90007 STORE_CORRUPT, the one 90xxx code a server sends (a stored card that no longer
 *   hashes to its id);
 * - 91xxx the transparency log, with the statuses C2SP tlog-witness v1.0.0 gives.
 * Codes no server sends (the CLI's alone) are in local-errors.ts and have no HTTP status.
 * Pure data.
 */
import { LIMITS } from './limits.js';

export interface WireError {
  /** The number the Error object carries (a string of its digits in the default profile). */
  readonly wire: number;
  /** The HTTP status the error is sent with. */
  readonly status: number;
  /** Another status it is sent with in some cases (STORE_UNAVAILABLE: 503 for a store away). */
  readonly alsoStatus?: 503;
  /** The default message with `alsoStatus`, when it says another thing than `message`. */
  readonly alsoMessage?: string;
  /** Default message (the deployed service's text where it has one). */
  readonly message: string;
}

const w = (wire: number, status: number, message: string): WireError => ({
  wire,
  status,
  message,
});

export const WIRE_ERRORS = {
  // The service (10xxx).
  INTERNAL: w(10000, 500, 'Request serving internal error. Try again later.'),
  CARD_NOT_FOUND: w(10001, 404, 'Requested card entity not found.'),
  ROUTE_NOT_FOUND: w(10002, 404, 'Route not found.'),
  METHOD_NOT_ALLOWED: w(10003, 405, 'Method not allowed on this route.'),
  BODY_TOO_LARGE: w(10004, 413, 'Request body is too large (limit 64 KiB).'),
  SERVER_BUSY: w(10005, 503, 'Too many connections. Try again later.'),
  // 500 when the disk refused a write (only a write meets the disk); 503 when a database is
  // away or its pool is full, for a read as for a write (a client may retry at once).
  STORE_UNAVAILABLE: {
    ...w(10006, 500, 'The card store could not be written. Try again later.'),
    alsoStatus: 503,
    alsoMessage:
      'The card store is unavailable: its database cannot be reached or is busy. Try again later.',
  },
  UNSUPPORTED_MEDIA_TYPE: w(10007, 415, 'Request body must be application/json.'),
  HTTP_MALFORMED: w(10008, 400, 'Malformed HTTP request.'),
  REQUEST_TIMEOUT: w(10009, 408, 'The request was not received in time.'),
  HEADERS_TOO_LARGE: w(10010, 431, 'Request headers are too large.'),
  STORE_READ_ONLY: w(
    10011,
    503,
    'The card store stopped accepting writes after a write it could not undo. Try again later.',
  ),
  // The admin API (101xx).
  IMPORT_NOT_EMPTY: w(
    10101,
    409,
    'The registry is not empty; import with ?append=true to add to it, or reset it first.',
  ),
  IDENTITY_NOT_FOUND: w(10102, 404, 'No card has this identity.'),

  // Authentication (203xx).
  AUTH_MISSING: w(20300, 401, 'Authorization header is missing.'),
  AUTH_SCHEME: w(20301, 401, 'Authorization scheme is not the expected one.'),
  TOKEN_MALFORMED: w(20302, 401, 'Token is malformed.'),
  TOKEN_SIGNATURE: w(20303, 401, 'Token signature is invalid or its key is not trusted.'),
  TOKEN_EXPIRED: w(20304, 401, 'Token has expired.'),
  TOKEN_NOT_YET_VALID: w(20305, 401, 'Token is not valid yet.'),
  TOKEN_ALGORITHM: w(20306, 401, 'Token algorithm is not allowed.'),
  TOKEN_CLAIMS: w(20307, 401, 'Token claims are missing or invalid.'),
  TOKEN_NOT_LOCAL: w(
    20308,
    401,
    'A token this server does not verify (--accept-any-token) is taken only from this machine.',
  ),
  // The admin token (2032x).
  ADMIN_AUTH_MISSING: w(
    20320,
    401,
    'Admin token is missing: send Authorization: Bearer <admin token>.',
  ),
  ADMIN_TOKEN_INVALID: w(20321, 401, 'Admin token is not valid.'),
  ADMIN_TOKEN_ON_CARD_ROUTE: w(
    20322,
    401,
    'The admin token does not authorize card routes; send a card token.',
  ),

  // The request's shape (30xxx).
  BODY_PARSE: w(30001, 400, 'Request body parsing error. Invalid JSON, field name or field type.'),
  CARD_ID_INVALID: w(30002, 400, 'Card ID is not a valid ID (64 hexadecimal characters).'),
  // The admin API's requests (301xx).
  QUERY_INVALID: w(30100, 400, 'A query parameter is invalid.'),
  RESET_NOT_CONFIRMED: w(30101, 400, 'Reset needs the body {"confirm":"reset"}.'),
  IMPORT_INVALID: w(30102, 400, 'An import line is not a valid stored card record.'),
  IMPORT_LINE_TOO_LONG: w(30103, 413, 'An import line is longer than any card record.'),
  FAULT_INVALID: w(30104, 400, 'A fault rule is invalid.'),

  // Card validation (40xxx): the deployed service's codes and texts.
  SNAPSHOT_EMPTY: w(40001, 400, 'Content snapshot is empty.'),
  SNAPSHOT_NOT_BASE64: w(40002, 400, 'Content snapshot is not a base64-encoded string.'),
  SNAPSHOT_NOT_JSON: w(40003, 400, 'Content snapshot is not a base64-encoded JSON message.'),
  SIGNATURE_MISSING: w(40006, 400, 'Signature is missing in signature entries.'),
  SIGNER_INVALID: w(40007, 400, 'Signer is missing or is incorrect in one of signature entries.'),
  SELF_SIGNATURE_MISSING: w(40008, 400, 'Self signature is missing for the Card.'),
  VERSION_INVALID: w(40011, 400, 'Card version must be 5.0.'),
  PUBLIC_KEY_NOT_BASE64: w(40012, 400, 'Public key is not a base64-encoded string.'),
  PREVIOUS_ID_INVALID: w(40014, 400, 'Previous Card ID is not a valid ID.'),
  PREVIOUS_NOT_FOUND: w(40015, 400, 'Previous Card ID does not exist.'),
  IDENTITY_TOO_LONG: w(40017, 400, "Identity is incorrect. It mustn't exceed 1024 bytes."),
  CREATED_AT_INVALID: w(40018, 400, 'Creation time is incorrect.'),
  EXTRA_SNAPSHOT_INVALID: w(40019, 400, 'Extra content snapshot decoding error.'),
  SIGNATURE_NOT_BASE64: w(40020, 400, 'Signature is not a base64-encoded string.'),
  SIGNATURE_INVALID: w(40021, 400, 'Signature verification failed for one of signature entries.'),
  SIGNATURES_EMPTY: w(40022, 400, 'Signature list must contain at least self signature.'),
  SIGNATURES_TOO_MANY: w(40023, 400, 'Signature list must contain at most eight entries.'),
  EXTRA_SNAPSHOT_TOO_LONG: w(
    40026,
    400,
    'Extra snapshot is too long for one of signature entries. It must not exceed 1024 bytes.',
  ),
  SNAPSHOT_NOT_UNIQUE: w(40027, 400, 'Card content snapshot is not unique.'),
  PUBLIC_KEY_TOO_LONG: w(40029, 400, 'Public key exceeds 4096 bytes.'),
  PUBLIC_KEY_TOO_SHORT: w(40030, 400, 'Public key is less than 16 bytes.'),
  SELF_SIGNATURE_DUPLICATE: w(40031, 400, 'Self signature must be only one.'),
  PREVIOUS_IDENTITY_MISMATCH: w(
    40032,
    400,
    "Previous Card identity doesn't match current Card one.",
  ),
  IDENTITY_EMPTY: w(40033, 400, 'Identity is empty.'),
  IDENTITY_MISMATCH: w(
    40034,
    400,
    'Identity is incorrect. It must match request identity provided in JWT.',
  ),
  SIGNER_EMPTY: w(40035, 400, 'Signer is empty in one of signature entries.'),
  SIGNER_TOO_LONG: w(
    40036,
    400,
    "Signer is too long in one of signature entries. It mustn't exceed 1024 characters.",
  ),
  PREVIOUS_SUPERSEDED: w(40037, 400, 'Previous Card exists already.'),
  SEARCH_EMPTY: w(40200, 400, 'Identity search parameter cannot be empty.'),
  SEARCH_TOO_MANY: w(40300, 400, 'Identities to search amount limited to 50.'),
  CHAIN_REVOKED: w(40310, 403, 'Deleted card can not be deleted.'),
  PUBLIC_KEY_NOT_EMPTY: w(40410, 400, 'Public key must be empty.'),
  REVOKE_PREVIOUS_MISSING: w(40420, 400, 'Empty card ID to delete (previous Card ID).'),
  // Ours (4009x): a card key of a type whose self signature cannot be checked (docs/http.md);
  // a snapshot string or a searched identity that is not text every store can hold alike
  // (core/text.ts); a snapshot the transparency log cannot hold.
  KEY_TYPE_UNSUPPORTED: w(
    40090,
    400,
    'The card key type cannot sign its card or is not supported.',
  ),
  TEXT_NOT_UNICODE: w(
    40091,
    400,
    'Text is incorrect. It must be well-formed Unicode without U+0000.',
  ),
  // A snapshot longer than one transparency log entry holds (core/limits.ts snapshotMax).
  SNAPSHOT_TOO_LONG: w(
    40092,
    400,
    `Content snapshot is too long. It must not exceed ${LIMITS.snapshotMax} bytes (one transparency log entry).`,
  ),

  // Keyknox (50xxx): e3kit's key backups and group tickets. 50010 is the deployed service's
  // (the stock clients compare it as a number); the rest are ours.
  KEYKNOX_VALUE_INVALID: w(50001, 400, 'Keyknox meta and value must be non-empty base64.'),
  KEYKNOX_ADDRESS_INVALID: w(
    50002,
    400,
    'Keyknox root, path, key and identity must be non-empty strings of at most 1024 bytes.',
  ),
  KEYKNOX_IDENTITIES_INVALID: w(
    50003,
    400,
    `Keyknox identities must be a list of identities, at most ${LIMITS.keyknoxReadersMax} readers an entry.`,
  ),
  KEYKNOX_ENTRY_TOO_LARGE: w(
    50004,
    413,
    `A Keyknox entry keeps at most ${LIMITS.keyknoxEntryMax / (1024 * 1024)} MiB over all its readers' copies.`,
  ),
  KEYKNOX_CONFLICT: w(
    50010,
    409,
    'Invalid previous hash: the entry changed since it was pulled. Pull it and push again.',
  ),

  // Pythia (60xxx): brainkeys and breach-proof passwords. 60007 is the deployed service's (e3kit
  // retries a brainkey once, 2 s later, on exactly that number); the rest are ours.
  PYTHIA_PASSWORD_INVALID: w(
    60001,
    400,
    'blinded_password must be base64 of a compressed BLS12-381 G1 point (49 bytes).',
  ),
  PYTHIA_SALT_INVALID: w(60002, 400, 'user_id must be base64 of 1 to 128 bytes.'),
  PYTHIA_VERSION_UNKNOWN: w(60003, 400, 'This server has no Pythia key of that version.'),
  PYTHIA_BRAINKEY_ID_INVALID: w(60004, 400, 'brainkey_id must be a string of at most 1024 bytes.'),
  PYTHIA_THROTTLED: w(60007, 429, 'Too many Pythia requests. Retry in 2 seconds.'),

  // The one 90xxx code a server sends: a stored card whose snapshot no longer hashes to its id.
  STORE_CORRUPT: w(90007, 500, 'The store file cannot be read.'),

  // The transparency log (91xxx): a witness's refusals (C2SP tlog-witness v1.0.0 statuses) and
  // the log routes' answers.
  LOG_NOTE_MALFORMED: w(91001, 400, 'Signed note, checkpoint or proof is malformed.'),
  LOG_SIGNATURE_INVALID: w(91002, 403, 'No signature from a trusted log key verifies.'),
  LOG_PROOF_INVALID: w(91003, 422, 'The Merkle proof does not verify.'),
  LOG_INCONSISTENT: w(
    91004,
    409,
    'The log forked or rewound: this checkpoint is not consistent with one seen before.',
  ),
  LOG_UNKNOWN_ORIGIN: w(91005, 404, 'No trusted key is configured for this log origin.'),
  LOG_SIZE_MISMATCH: w(
    91006,
    409,
    'The old size does not match the latest checkpoint the witness cosigned.',
  ),
  LOG_NOT_INTEGRATED: w(
    91007,
    404,
    'The card is not in a signed checkpoint of the log yet. Retry in a second.',
  ),
  LOG_TILE_NOT_FOUND: w(91008, 404, 'The log has no such tile or entry bundle.'),
  LOG_DISABLED: w(91010, 404, 'This server keeps no transparency log.'),
} as const satisfies Record<string, WireError>;

export type WireCode = keyof typeof WIRE_ERRORS;
