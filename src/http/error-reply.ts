/**
 * Every failure leaves the server as the Error object `{code, message}` (spec 2.5) with a
 * documented code: the registry's CardsErrors as they are, fastify's own errors (bad JSON, body
 * too large, wrong content type, bad URL) translated here, anything else 500 INTERNAL. A
 * library's message never reaches a response body, nor does the detail of a 5xx (a file path,
 * an errno): those go to the server's log.
 */
import {
  CardsError,
  WIRE_ERRORS,
  wireErrorOf,
  wireMessageOf,
  type WireCardsError,
  type WireCode,
} from '../core/errors.js';
import type { WireProfile } from '../core/profile.js';

export const JSON_TYPE = 'application/json; charset=utf-8';

/** fastify error codes → ours; any other 4xx becomes HTTP_MALFORMED, anything else INTERNAL. */
const FASTIFY_CODES: Readonly<Record<string, WireCode>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'BODY_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'BODY_PARSE',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'BODY_PARSE',
  FST_ERR_CTP_INVALID_JSON_BODY: 'BODY_PARSE',
  FST_ERR_BAD_URL: 'HTTP_MALFORMED',
  FST_ERR_MAX_PARAM_LENGTH: 'CARD_ID_INVALID',
};

/**
 * The CardsError a thrown value stands for (never carrying a library's message), with a code a
 * server sends: any other becomes INTERNAL (`wireErrorOf`).
 */
export function toCardsError(err: unknown): WireCardsError {
  if (err instanceof CardsError) return wireErrorOf(err);
  const { code, statusCode } = (err ?? {}) as { code?: unknown; statusCode?: unknown };
  // `curl -d` sends form encoding unless told: name the header to add.
  if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
    return wireErrorOf(
      new CardsError(
        'UNSUPPORTED_MEDIA_TYPE',
        'Request body must be application/json: send the header "Content-Type: application/json".',
      ),
    );
  if (typeof code === 'string' && Object.hasOwn(FASTIFY_CODES, code))
    return wireErrorOf(new CardsError(FASTIFY_CODES[code] as WireCode));
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500)
    return wireErrorOf(new CardsError('HTTP_MALFORMED'));
  return wireErrorOf(new CardsError('INTERNAL', undefined, { cause: err }));
}

/** The Error object's JSON: `code` a string of digits or a number, as the profile says. */
export function errorBody(profile: WireProfile, err: WireCardsError): string {
  const { wire } = WIRE_ERRORS[err.code];
  return JSON.stringify({
    code: profile.codeType === 'number' ? wire : String(wire),
    message: wireMessageOf(err),
  });
}

/** A whole HTTP/1.1 response for a socket fastify never turned into a request. */
export function rawErrorResponse(
  err: WireCardsError,
  { type, body }: { readonly type: string; readonly body: string },
): string {
  const reason =
    { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' }[
      err.status
    ] ?? 'Error';
  return (
    `HTTP/1.1 ${err.status} ${reason}\r\nContent-Type: ${type}\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}
