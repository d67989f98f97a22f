/**
 * Byte encodings, in one place (house habit 1: bytes inside, encodings at the edge).
 *
 * Base64 decoding is strict: standard alphabet, padded to a multiple of four, no whitespace.
 * Node's own decoder silently skips bad characters, which would let two different strings name
 * the same bytes. Never throws for bad input: returns `undefined` and lets the caller pick the code.
 */

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const HEX = /^(?:[0-9a-fA-F]{2})*$/;

export function decodeBase64(text: string): Uint8Array | undefined {
  if (!BASE64.test(text)) return undefined;
  return new Uint8Array(Buffer.from(text, 'base64'));
}

export function encodeBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/**
 * Each of `items` in base64 (a proof's hashes): copied into one buffer and encoded a range at a
 * time, which costs half of a Buffer made for each.
 */
export function encodeBase64Each(items: readonly Uint8Array[]): string[] {
  const all = Buffer.concat(items);
  const out: string[] = [];
  let at = 0;
  for (const item of items) out.push(all.toString('base64', at, (at += item.byteLength)));
  return out;
}

export function decodeBase64Url(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return undefined;
  return new Uint8Array(Buffer.from(text, 'base64url'));
}

export function encodeBase64Url(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');
}

export function decodeHex(text: string): Uint8Array | undefined {
  if (!HEX.test(text)) return undefined;
  return new Uint8Array(Buffer.from(text, 'hex'));
}

export function encodeHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

const encoder = new TextEncoder();
const strictDecoder = new TextDecoder('utf-8', { fatal: true });

export const utf8 = (text: string): Uint8Array => encoder.encode(text);

/** UTF-8 byte length without allocating. */
export const utf8Length = (text: string): number => Buffer.byteLength(text, 'utf8');

/** Strict UTF-8 decode: `undefined` on malformed input. */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return strictDecoder.decode(bytes);
  } catch {
    return undefined;
  }
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(parts));
}
