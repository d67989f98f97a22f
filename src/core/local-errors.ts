/**
 * The codes no server sends: raised by the CLI, its key handling and the start-up of a server
 * process, and reported by the CLI alone (docs/errors.md, "Codes of the CLI"). Each has a
 * number in the 90xxx block (91xxx for the log's) that the CLI prints, and no HTTP status: the
 * HTTP edge turns one that reaches it into 500 INTERNAL (errors.ts, `wireErrorOf`). Pure data.
 */

export interface LocalError {
  /** The number the CLI prints beside the name ("error USAGE (90001)"). */
  readonly number: number;
  /** Default message. */
  readonly message: string;
}

const l = (number: number, message: string): LocalError => ({ number, message });

export const LOCAL_ERRORS = {
  USAGE: l(90001, 'Invalid command-line usage.'),
  KEY_FORMAT: l(90002, 'Key is not in an accepted format.'),
  FILE_EXISTS: l(90003, 'File exists already.'),
  FILE_NOT_FOUND: l(90004, 'File not found.'),
  UNREACHABLE: l(90005, 'The service could not be reached.'),
  VERIFICATION_FAILED: l(90006, 'Card verification failed.'),
  // 90007 is STORE_CORRUPT, which a server sends too (wire-errors.ts).
  STORE_LOCKED: l(90008, 'Another server is using this store.'),
  CONFIG_INVALID: l(90009, 'Configuration file is invalid.'),
  SERVICE_REFUSED: l(90010, 'The service refused the request.'),
  CREDENTIALS_MISSING: l(90011, 'No token or app key to authenticate with.'),
  // Opening a PostgreSQL store (`--store postgres://…`): each stops start-up.
  STORE_URL_INVALID: l(90012, 'The store URL is not a PostgreSQL URL.'),
  STORE_AUTH_FAILED: l(90013, 'PostgreSQL refused the user or password.'),
  STORE_DATABASE_UNKNOWN: l(90014, 'The PostgreSQL database does not exist.'),
  STORE_UNREACHABLE: l(90015, 'PostgreSQL cannot be reached.'),
  STORE_NOT_EMPTY: l(90016, 'The store holds cards already (import: --append).'),
  // A person stopped the command at a question: not an error, and nothing was changed.
  CANCELLED: l(90017, 'Cancelled; nothing was changed.'),
  DECLINED: l(90018, 'Not confirmed; nothing was changed.'),
  NOT_A_SERVICE: l(90019, 'The URL does not answer as a Cards service.'),
  IDENTITY_HAS_CARD: l(90020, 'The identity has a live card already.'),
  CARD_ID_AMBIGUOUS: l(90021, 'More than one card id starts with the digits given.'),
  // The log's block: `cards monitor` found a key it was not told to expect.
  LOG_UNEXPECTED_KEY: l(
    91009,
    'The log holds a card of the identity with a key that was not expected.',
  ),
  // A server's start: its log is missing or behind the last checkpoint its key signed.
  LOG_ROLLED_BACK: l(
    91011,
    'The transparency log is missing or behind what its key signed; refusing to sign a fork.',
  ),
} as const satisfies Record<string, LocalError>;

export type LocalCode = keyof typeof LOCAL_ERRORS;
