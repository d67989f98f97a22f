/**
 * A write of the JSON engine's files that failed (a full disk, a folder gone read-only): 503
 * STORE_UNAVAILABLE naming what was written and the system's error code, the write refused.
 */
import { CardsError } from '../../core/errors.js';

export const unavailable = (what: string, cause: unknown): CardsError =>
  new CardsError(
    'STORE_UNAVAILABLE',
    `${what}: ${(cause as NodeJS.ErrnoException).code ?? 'write failed'}.`,
    { cause },
  );
