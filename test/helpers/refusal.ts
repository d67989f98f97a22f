// The code a promise is refused with: fails the test when it resolves, or when it rejects with
// anything but a CardsError.
import assert from 'node:assert/strict';
import { CardsError, type ErrorCode } from '../../src/core/errors.js';

export async function refusalCode(promise: Promise<unknown>): Promise<ErrorCode> {
  const err = await promise.then(
    () => assert.fail('expected a refusal'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof CardsError, String(err));
  return err.code;
}
