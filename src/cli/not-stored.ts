/**
 * Whether a request that failed surely stored nothing, for the commands that made a key for a
 * card (`cards create --new-key`, `cards rotate`) and must decide whether to keep it: a service's
 * refusal stored nothing, and neither did a connection that never opened; no answer in time, or
 * a 5xx, may follow a card the service stored.
 */
import type { CardsError } from '../core/errors.js';
import { EXIT, EXIT_STATUS } from './exit-status.js';

/** Network failures that happen before a request reaches the service. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH']);

/** Whether the request `err` ended never reached the service (its connection did not open). */
export const notSent = (err: CardsError): boolean => {
  const cause = (err.cause as NodeJS.ErrnoException | undefined)?.code;
  return cause !== undefined && NOT_SENT.has(cause);
};

/** Whether the service surely did not store what the request that failed with `err` carried. */
export const surelyNotStored = (err: CardsError): boolean =>
  EXIT_STATUS[err.code] !== EXIT.unreachable || notSent(err);
