/**
 * Keyknox records as JSON, one object per line: what the JSON engine writes to its Keyknox
 * file and what `cards export` writes beside the cards. Bytes are base64; hash, version and
 * revision are kept as they are, so a moved registry still accepts the hash a client holds.
 *
 * - `{"keyknox1": {app, identity, meta, value, version, hash, revision, created, updated}}`: a
 *   v1 blob;
 * - `{"keyknox2": {app, owner, root, path, key, copies: [{meta, value}], readers: [{identity,
 *   copy}], hash, revision, created, updated}}`: a v2 entry;
 * - `{"keyknox2del": {app, owner, root, path, key}}`: a v2 entry deleted (the file only).
 *
 * `created` and `updated` (ms since the epoch, keyknox.ts `KeyknoxDates`) are written when the
 * record has them. A line without them is what a dump written before records had dates holds: it
 * is read as a record without dates, and written back without them, so a rerun import of that
 * dump still finds it stored identically.
 *
 * Reading checks every field's type and range and throws a `CardsError` naming the line's
 * place and what is wrong; it never returns a half-read record.
 */
import { decodeStoredBase64, encodeBase64 } from '../core/encoding.js';
import { CardsError } from '../core/errors.js';
import { isObject } from '../core/json.js';
import type {
  KeyknoxCopy,
  KeyknoxDates,
  KeyknoxReader,
  KeyknoxRecord,
  KeyknoxV1Address,
  KeyknoxV1Record,
  KeyknoxV2Address,
  KeyknoxV2Entry,
} from './keyknox.js';

export type KeyknoxLine =
  KeyknoxRecord | { readonly kind: 'keyknox2del'; readonly address: KeyknoxV2Address };

const b64 = encodeBase64;

/** The dates a record has, for its line (none for a record read from a line without them). */
export const datesOf = (r: KeyknoxDates): KeyknoxDates => ({
  ...(r.created !== undefined && { created: r.created }),
  ...(r.updated !== undefined && { updated: r.updated }),
});

export function keyknox1Line(address: KeyknoxV1Address, r: KeyknoxV1Record): string {
  return JSON.stringify({
    keyknox1: {
      app: address.app,
      identity: address.identity,
      meta: b64(r.meta),
      value: b64(r.value),
      version: r.version,
      hash: r.hash,
      revision: r.revision,
      ...datesOf(r),
    },
  });
}

export function keyknox2Line(e: KeyknoxV2Entry): string {
  return JSON.stringify({
    keyknox2: {
      ...e.address,
      copies: e.copies.map((c) => ({ meta: b64(c.meta), value: b64(c.value) })),
      readers: e.readers.map((r) => ({ identity: r.identity, copy: r.copy })),
      hash: e.hash,
      revision: e.revision,
      ...datesOf(e),
    },
  });
}

const keyknox2DeleteLine = (a: KeyknoxV2Address): string =>
  JSON.stringify({
    keyknox2del: { app: a.app, owner: a.owner, root: a.root, path: a.path, key: a.key },
  });

/** The text of a line of any kind, without its line break. */
export const keyknoxLineText = (line: KeyknoxLine): string =>
  line.kind === 'keyknox1'
    ? keyknox1Line(line.address, line.record)
    : line.kind === 'keyknox2'
      ? keyknox2Line(line.entry)
      : keyknox2DeleteLine(line.address);

/** Whether a parsed JSON line is a Keyknox record (by its one key). */
export const isKeyknoxLine = (value: unknown): boolean =>
  isObject(value) && ('keyknox1' in value || 'keyknox2' in value || 'keyknox2del' in value);

/** The record of a parsed JSON line; `where` names its place for the error. */
export function readKeyknoxLine(value: unknown, where: string): KeyknoxLine {
  const bad = (what: string): never => {
    throw new CardsError('STORE_CORRUPT', `${where}: ${what}`);
  };
  if (!isObject(value)) return bad('not a Keyknox record');
  const text = (o: Record<string, unknown>, name: string): string => {
    const v = o[name];
    return typeof v === 'string' ? v : bad(`"${name}" is not a string`);
  };
  const bytes = (o: Record<string, unknown>, name: string): Uint8Array =>
    decodeStoredBase64(text(o, name)) ?? bad(`"${name}" is not base64`);
  const count = (o: Record<string, unknown>, name: string, min: number): number => {
    const v = o[name];
    return Number.isSafeInteger(v) && (v as number) >= min
      ? (v as number)
      : bad(`"${name}" is not an integer from ${min}`);
  };
  // Optional: a dump line written before records had dates carries none.
  const dates = (o: Record<string, unknown>): KeyknoxDates => {
    const at = (name: string): number | undefined =>
      o[name] === undefined ? undefined : count(o, name, 0);
    return datesOf({ created: at('created'), updated: at('updated') });
  };
  const v2Address = (o: Record<string, unknown>): KeyknoxV2Address => ({
    app: text(o, 'app'),
    owner: text(o, 'owner'),
    root: text(o, 'root'),
    path: text(o, 'path'),
    key: text(o, 'key'),
  });
  const body = (name: string): Record<string, unknown> | undefined => {
    const v = value[name];
    if (v === undefined) return undefined;
    return isObject(v) ? v : bad(`"${name}" is not an object`);
  };
  const v1 = body('keyknox1');
  if (v1)
    return {
      kind: 'keyknox1',
      address: { app: text(v1, 'app'), identity: text(v1, 'identity') },
      record: {
        meta: bytes(v1, 'meta'),
        value: bytes(v1, 'value'),
        version: count(v1, 'version', 1),
        hash: text(v1, 'hash'),
        revision: count(v1, 'revision', 1),
        ...dates(v1),
      },
    };
  const del = body('keyknox2del');
  if (del) return { kind: 'keyknox2del', address: v2Address(del) };
  const v2 = body('keyknox2');
  if (!v2) return bad('not a Keyknox record');
  const list = (name: string): Record<string, unknown>[] => {
    const v = v2[name];
    if (!Array.isArray(v) || !v.every(isObject)) return bad(`"${name}" is not a list of objects`);
    return v as Record<string, unknown>[];
  };
  const copies: KeyknoxCopy[] = list('copies').map((c) => ({
    meta: bytes(c, 'meta'),
    value: bytes(c, 'value'),
  }));
  if (copies.length === 0) bad('"copies" is empty');
  const readers: KeyknoxReader[] = list('readers').map((r) => ({
    identity: text(r, 'identity'),
    copy: count(r, 'copy', 0),
  }));
  if (readers.some((r) => r.copy >= copies.length)) bad('a reader names a copy that is not there');
  return {
    kind: 'keyknox2',
    entry: {
      address: v2Address(v2),
      copies,
      readers,
      hash: text(v2, 'hash'),
      revision: count(v2, 'revision', 1),
      ...dates(v2),
    },
  };
}
