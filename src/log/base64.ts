/**
 * Canonical base64 for the log's text formats: strict decoding (core/encoding) plus a re-encode
 * check, so unused trailing bits must be zero. Otherwise two texts (a signature line, a proof
 * line) would carry the same bytes, and a flipped bit in a note could go unnoticed.
 */
import { decodeBase64, encodeBase64 } from '../core/encoding.js';

export function decodeCanonicalBase64(text: string): Uint8Array | undefined {
  const bytes = decodeBase64(text);
  return bytes && encodeBase64(bytes) === text ? bytes : undefined;
}
