/**
 * Entry bundles (C2SP tlog-tiles v0.1.0 "Log entries"): a sequence of entries, each preceded by
 * its length as a big-endian uint16. Entries over 65,535 bytes cannot be logged in this format.
 */
import { TILE_WIDTH } from './tile-path.js';

export const MAX_ENTRY_SIZE = 0xffff;

export function encodeEntryBundle(entries: readonly Uint8Array[]): Uint8Array {
  let total = 0;
  for (const entry of entries) {
    if (entry.byteLength > MAX_ENTRY_SIZE) {
      throw new RangeError(`log entry: ${entry.byteLength} bytes, at most ${MAX_ENTRY_SIZE}`);
    }
    total += 2 + entry.byteLength;
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const entry of entries) {
    out[at] = entry.byteLength >> 8;
    out[at + 1] = entry.byteLength & 0xff;
    out.set(entry, at + 2);
    at += 2 + entry.byteLength;
  }
  return out;
}

/** The entries of a bundle, or undefined when it is truncated or holds more than 256 entries. */
export function decodeEntryBundle(bundle: Uint8Array): Uint8Array[] | undefined {
  const entries: Uint8Array[] = [];
  let at = 0;
  while (at < bundle.byteLength) {
    if (at + 2 > bundle.byteLength || entries.length === TILE_WIDTH) return undefined;
    const length = ((bundle[at] as number) << 8) | (bundle[at + 1] as number);
    if (at + 2 + length > bundle.byteLength) return undefined;
    entries.push(bundle.subarray(at + 2, at + 2 + length));
    at += 2 + length;
  }
  return entries;
}
