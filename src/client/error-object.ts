/**
 * An Error object as a Cards Service answers a refusal (spec 2.5: `{"code", "message"}`, the
 * code a string of digits, or a number in the deployed service's profile), read from an answer's
 * text by every client here: the code as this project names it (`codeForWire`), when it is one a
 * server sends, and the message.
 */
import { asClause, codeForWire, WIRE_ERRORS, type WireCode } from '../core/errors.js';

export interface ErrorObject {
  readonly code: WireCode | undefined;
  readonly message: string | undefined;
  /** The text is an Error object: a code of either form and a message. */
  readonly whole: boolean;
}

export function readErrorObject(text: string): ErrorObject {
  let body: { code?: unknown; message?: unknown } | undefined;
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    body = undefined;
  }
  const wire = body?.code;
  const named = typeof wire === 'number' || typeof wire === 'string';
  const message = typeof body?.message === 'string' ? body.message : undefined;
  return {
    code: named ? codeForWire(wire) : undefined,
    message,
    whole: named && message !== undefined,
  };
}

/**
 * An answer that is the service failing, not refusing the request: a 5xx naming no code, or a
 * code a server sends as a failure of its own (a 5xx in the wire table). Undefined for any other
 * answer; else its words after "HTTP <status>": ` — CODE (wire): message`, or nothing without a
 * code. Such a failure is UNREACHABLE for every client here (try again later), whatever it read.
 */
export function serviceFailure(status: number, error: ErrorObject): string | undefined {
  const { code, message } = error;
  if (status < 500 || (code !== undefined && WIRE_ERRORS[code].status < 500)) return undefined;
  if (code === undefined) return '';
  return ` — ${code} (${WIRE_ERRORS[code].wire}): ${asClause(message ?? WIRE_ERRORS[code].message)}`;
}
