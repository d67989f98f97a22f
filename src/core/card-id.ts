/**
 * Card identifiers (spec 2.4): lowercase hex of the first 32 bytes of SHA-512 over the decoded
 * content snapshot, exactly as received. Never computed over a re-serialised object.
 */
import { createHash } from 'node:crypto';

export function cardIdOf(snapshot: Uint8Array): string {
  return createHash('sha512').update(snapshot).digest().subarray(0, 32).toString('hex');
}
