/**
 * The one error type of the project and its codes.
 *
 * Every refusal anywhere (core, registry, HTTP, CLI) is a `CardsError` whose `code` is a key of
 * one of two tables: WIRE_ERRORS (wire-errors.ts: the codes a server sends, with their wire
 * number and HTTP status) or LOCAL_ERRORS (local-errors.ts: the CLI's own, with a number and no
 * HTTP status). The CLI's exit status of every code is the CLI's table (src/cli/exit-status.ts).
 * Never throws anything else for bad input; never imports I/O.
 */
import { LOCAL_ERRORS, type LocalCode } from './local-errors.js';
import { WIRE_ERRORS, type WireCode, type WireError } from './wire-errors.js';

export { LOCAL_ERRORS, type LocalCode, type LocalError } from './local-errors.js';
export { WIRE_ERRORS, type WireCode, type WireError } from './wire-errors.js';

export type ErrorCode = WireCode | LocalCode;

export const isWireCode = (code: ErrorCode): code is WireCode => Object.hasOwn(WIRE_ERRORS, code);

/** The code's number: the wire code a server sends, or the CLI's own (90xxx). */
export const numberOf = (code: ErrorCode): number =>
  isWireCode(code) ? WIRE_ERRORS[code].wire : LOCAL_ERRORS[code].number;

/** The code's default message. */
export const messageOf = (code: ErrorCode): string =>
  isWireCode(code) ? WIRE_ERRORS[code].message : LOCAL_ERRORS[code].message;

export interface CardsErrorOptions {
  /** A next step for a person ("run `cards keygen --identity alice` first"). */
  readonly hint?: string | undefined;
  readonly cause?: unknown;
  /** The code's other HTTP status, where the wire table gives one (STORE_UNAVAILABLE: 503). */
  readonly status?: 503;
  /**
   * What the failing command had done before it failed (`cards seed`: the cards it made),
   * printed with the error in one JSON document under `--json` (src/cli/report-error.ts).
   */
  readonly partial?: Readonly<Record<string, unknown>>;
}

export class CardsError extends Error {
  override readonly name = 'CardsError';
  readonly code: ErrorCode;
  /** A next step for a person ("run `cards keygen --identity alice` first"). */
  readonly hint: string | undefined;
  /**
   * The HTTP status of a code a server sends: the code's usual one, or its `alsoStatus` when
   * asked for. Undefined for a code of the CLI alone, which has none.
   */
  readonly status: number | undefined;
  /** What the failing command had done (CardsErrorOptions.partial). */
  readonly partial: Readonly<Record<string, unknown>> | undefined;

  constructor(code: ErrorCode, message?: string, options?: CardsErrorOptions) {
    super(message ?? messageOf(code), options?.cause ? { cause: options.cause } : undefined);
    this.code = code;
    this.hint = options?.hint;
    this.partial = options?.partial;
    if (isWireCode(code)) {
      const info = WIRE_ERRORS[code];
      const also: number | undefined = 'alsoStatus' in info ? info.alsoStatus : undefined;
      this.status =
        options?.status !== undefined && options.status === also ? options.status : info.status;
    } else {
      this.status = undefined;
    }
  }

  /** The code's number (`numberOf`). */
  get number(): number {
    return numberOf(this.code);
  }
}

/** A CardsError a server may send: a code of the wire table, and so an HTTP status. */
export interface WireCardsError extends CardsError {
  readonly code: WireCode;
  readonly status: number;
}

export const isCardsError = (err: unknown): err is CardsError => err instanceof CardsError;

/**
 * `err` told again with `message`, for a caller that adds what it knows (where the error
 * arose, what became of the work): the same code, and its hint unless `options` give another
 * (`hint: undefined` drops it). A cause and `partial` are passed on only where `options` name
 * them.
 */
export const reworded = (
  err: CardsError,
  message: string,
  options: CardsErrorOptions = {},
): CardsError => new CardsError(err.code, message, { hint: err.hint, ...options });

/** A message, a sentence, as a clause of another: without its full stop, which the other ends with. */
export const asClause = (message: string): string => message.replace(/[.]$/, '');

export const isWireError = (err: CardsError): err is WireCardsError => isWireCode(err.code);

/**
 * The error a server sends for `err`: itself when its code is one a server sends, else 500
 * INTERNAL with `err` as the cause (for the operator's log; a code of the CLI alone is a bug
 * on a server, and its message never leaves it).
 */
export const wireErrorOf = (err: CardsError): WireCardsError =>
  isWireError(err)
    ? err
    : (new CardsError('INTERNAL', undefined, { cause: err }) as WireCardsError);

/**
 * The message a server sends with `err`: its own below 500; from 500 on the code's default
 * (a server-side failure's details, file paths and errno, are for the operator's log only),
 * the one of its other status when it is sent with that (WireError.alsoMessage).
 */
export function wireMessageOf(err: WireCardsError): string {
  if (err.status < 500) return err.message;
  const info: WireError = WIRE_ERRORS[err.code];
  return (err.status === info.alsoStatus && info.alsoMessage) || info.message;
}

/**
 * The code a server's Error object names (`wire`: its number, or a string of its digits);
 * undefined for a number no server sends.
 */
export function codeForWire(wire: number | string): WireCode | undefined {
  const n = typeof wire === 'string' ? Number(wire) : wire;
  for (const code of Object.keys(WIRE_ERRORS) as WireCode[])
    if (WIRE_ERRORS[code].wire === n) return code;
  return undefined;
}
