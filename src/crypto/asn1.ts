/**
 * A minimal strict DER reader for the key and signature structures of the stock crypto
 * library (docs/http.md "Cryptography"): tag, definite length (shortest form), value. Enough to
 * walk an SPKI, a compound key and a signature wrapper; never a general ASN.1 decoder. Pure.
 */
import { CardsError } from '../core/errors.js';

export const TAG = {
  integer: 0x02,
  bitString: 0x03,
  octetString: 0x04,
  oid: 0x06,
  sequence: 0x30,
} as const;

export interface Der {
  readonly tag: number;
  /** The whole element, tag and length included. */
  readonly bytes: Uint8Array;
  readonly value: Uint8Array;
}

const fail = (what: string, why: string): never => {
  throw new CardsError('KEY_FORMAT', `${what}: not valid DER (${why})`);
};

/** Reads one element at `offset`; `what` names the structure in errors. */
export function readDer(bytes: Uint8Array, offset: number, what: string): Der {
  const tag = bytes[offset];
  let length = bytes[offset + 1];
  if (tag === undefined || length === undefined) return fail(what, 'truncated');
  let header = 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count === 0 || count > 3) return fail(what, 'unsupported length form');
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + (bytes[offset + 2 + i] ?? NaN);
    if (Number.isNaN(length) || length < 0x80 || length < 256 ** (count - 1))
      return fail(what, 'non-minimal length');
    header += count;
  }
  const end = offset + header + length;
  if (end > bytes.byteLength) return fail(what, 'truncated');
  return { tag, bytes: bytes.subarray(offset, end), value: bytes.subarray(offset + header, end) };
}

/** Reads `bytes` as exactly one element with tag `tag` (nothing after it). */
export function readOnly(bytes: Uint8Array, tag: number, what: string): Der {
  const der = readDer(bytes, 0, what);
  if (der.tag !== tag) fail(what, `tag 0x${der.tag.toString(16)}, expected 0x${tag.toString(16)}`);
  if (der.bytes.byteLength !== bytes.byteLength) fail(what, 'trailing bytes');
  return der;
}

/** The children of a SEQUENCE, each checked against `tags` (and no more, no fewer). */
export function readSequence(bytes: Uint8Array, tags: readonly number[], what: string): Der[] {
  const seq = readOnly(bytes, TAG.sequence, what);
  const out: Der[] = [];
  for (let offset = 0; offset < seq.value.byteLength;) {
    const child = readDer(seq.value, offset, what);
    out.push(child);
    offset += child.bytes.byteLength;
  }
  if (out.length !== tags.length || out.some((child, i) => child.tag !== tags[i]))
    fail(what, `expected ${tags.length} elements of the expected types`);
  return out;
}

/** The dotted form of an OID value (for messages naming an unknown algorithm). */
export function oidToString(value: Uint8Array): string {
  const arcs: number[] = [];
  let arc = 0;
  for (const byte of value) {
    arc = arc * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) {
      if (arcs.length === 0)
        arcs.push(arc < 80 ? Math.floor(arc / 40) : 2, arc < 80 ? arc % 40 : arc - 80);
      else arcs.push(arc);
      arc = 0;
    }
  }
  return arcs.join('.');
}
