/**
 * Byte encodings, in one place: bytes inside, encodings at the edge.
 *
 * Base64 decoding is strict and canonical (RFC 4648 sections 3.3 and 3.5): standard alphabet,
 * padded to a multiple of four, no whitespace, and the unused bits of the last character zero.
 * Node's own decoder skips bad characters and ignores those bits, which would let several
 * strings name the same bytes. UTF-8 decoding is strict too: malformed bytes are refused, never
 * replaced by U+FFFD, and a byte-order mark is kept as U+FEFF, never dropped. Never throws for
 * bad input: returns `undefined` and lets the caller pick the code.
 */

/**
 * The alphabet with at most two '=' at the end; with a length that is a multiple of four, that
 * is RFC 4648's padded form. One pass with no backtracking: a pattern that counts groups of four
 * ((?:x{4})*) keeps a backtrack entry per group, so V8 overflows its stack past ~5 million
 * characters (and takes ~100 ms on a 1 MiB value before it compiles the pattern).
 */
const BASE64_CHARS = /^[A-Za-z0-9+/]*={0,2}$/;
const isBase64 = (text: string): boolean => text.length % 4 === 0 && BASE64_CHARS.test(text);
/** The last character before "==" carries 4 unused bits, before "=" 2: they must be zero. */
const LOOSE_TAIL = /(?:[^AQgw]==|[^AEIMQUYcgkosw048=]=)$/;
const HEX = /^(?:[0-9a-fA-F]{2})*$/;

export function decodeBase64(text: string): Uint8Array | undefined {
  if (!isBase64(text) || LOOSE_TAIL.test(text)) return undefined;
  return new Uint8Array(Buffer.from(text, 'base64'));
}

/**
 * The bytes of the base64 a store holds, to check them against the card's id: the alphabet and
 * padding of decodeBase64, with the unused trailing bits not judged, so a stored card is read
 * with the text it was acknowledged with.
 */
export function decodeStoredBase64(text: string): Uint8Array | undefined {
  if (!isBase64(text)) return undefined;
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
const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export const utf8 = (text: string): Uint8Array => encoder.encode(text);

/** UTF-8 byte length without allocating. */
export const utf8Length = (text: string): number => Buffer.byteLength(text, 'utf8');

/** Strict UTF-8 decode: `undefined` on malformed input; a byte-order mark stays U+FEFF. */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return strictDecoder.decode(bytes);
  } catch {
    return undefined;
  }
}

/** A lone surrogate (a pair is one code point under /u) or U+0000. */
// eslint-disable-next-line no-control-regex
const NOT_PORTABLE = /[\p{Cs}\u0000]/u;

/**
 * Whether `text` is text every store and encoder holds alike: well-formed Unicode (no lone
 * surrogate, which UTF-8 cannot encode: PostgreSQL would store U+FFFD) and no U+0000 (which
 * PostgreSQL text cannot hold). The rule of every identity and snapshot string (docs/http.md).
 */
export const isPortableText = (text: string): boolean => !NOT_PORTABLE.test(text);

/**
 * Orders text by code points, which is the order of its UTF-8 bytes and of a SQL engine's
 * binary collation (PostgreSQL's `COLLATE "C"` on a UTF-8 database), so every engine lists
 * alike. JavaScript's own `<` compares UTF-16 code units, which puts a character above U+FFFF
 * (a surrogate pair, 0xD800-0xDFFF) before U+E000-U+FFFF.
 */
export function compareText(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return x >= 0xd800 && y >= 0xd800 ? codePointRank(x) - codePointRank(y) : x - y;
  }
  return a.length - b.length;
}

/** A code unit from 0xD800 up, ranked as its code point orders: surrogates above U+FFFF. */
const codePointRank = (unit: number): number => (unit >= 0xe000 ? unit - 0x800 : unit + 0x2000);

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(parts));
}
