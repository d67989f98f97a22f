/**
 * An Error object as a Cards Service answers a refusal (spec 2.5: `{"code", "message"}`, the
 * code a string of digits, or a number in the deployed service's profile), read from an answer's
 * text by every client here: the code as this project names it (`codeForWire`), when it is one a
 * server sends, and the message.
 */
import { codeForWire, type WireCode } from '../core/errors.js';

interface ErrorObject {
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
