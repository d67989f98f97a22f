/** The code of the CardsError `run` throws (or rejects with), or 'none'; anything else rethrown. */
import { CardsError, type ErrorCode } from '../../src/core/errors.js';

export async function codeOf(run: () => unknown): Promise<ErrorCode | 'none'> {
  try {
    await run();
    return 'none';
  } catch (err) {
    if (err instanceof CardsError) return err.code;
    throw err;
  }
}

/** codeOf for a synchronous `run`. */
export function codeOfSync(run: () => unknown): ErrorCode | 'none' {
  try {
    run();
    return 'none';
  } catch (err) {
    if (err instanceof CardsError) return err.code;
    throw err;
  }
}
