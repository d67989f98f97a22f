/**
 * Card identifiers (spec 2.4): lowercase hex of the first 32 bytes of SHA-512 over the decoded
 * content snapshot, exactly as received. Never computed over a re-serialised object.
 */
import { hash } from 'node:crypto';

export function cardIdOf(snapshot: Uint8Array): string {
  return hash('sha512', snapshot, 'hex').slice(0, 64);
}
