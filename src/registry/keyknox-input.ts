/**
 * Reading Keyknox request bodies and the previous-hash header into typed requests: strict base64
 * for `meta`/`value`, addresses of non-empty strings within the identity limit, reader lists.
 * Every address part and reader is well-formed Unicode without U+0000, as an identity is
 * (docs/http.md, "Text"): PostgreSQL text holds no U+0000 and stores a lone surrogate as U+FFFD,
 * so without the rule one engine would fail on what another stores, and "x\uD800" and "x\uDBFF"
 * would be one root, path, key or reader there.
 * A body that is not an object is 30001 as on the card routes; a field of the wrong type or
 * form is the Keyknox code of that field. Optional fields absent, null or "" are not given
 * (JSON.stringify drops undefined ones; no stock client sends an empty address part). Pure.
 */
import { decodeBase64, isPortableText, utf8Length } from '../core/encoding.js';
import { CardsError, type ErrorCode } from '../core/errors.js';
import { LIMITS } from '../core/limits.js';
import type { KeyknoxCopy } from '../store/keyknox.js';
import { bodyObject } from './requests.js';

export interface V2Push extends KeyknoxCopy {
  readonly root: string;
  readonly path: string;
  readonly key: string;
  /** Distinct, in the order listed. */
  readonly identities: readonly string[];
}
export interface V2Pull {
  readonly root: string;
  readonly path: string;
  readonly key: string;
  readonly identity?: string;
}
export interface V2Keys {
  readonly root?: string;
  readonly path?: string;
  readonly identity?: string;
}
export interface V2Reset extends V2Keys {
  readonly key?: string;
}

export function parseV1Push(body: unknown): KeyknoxCopy {
  const b = bodyObject(body, 'Keyknox v1 push');
  return { meta: content(b.meta, 'meta'), value: content(b.value, 'value') };
}

export function parseV2Push(body: unknown): V2Push {
  const b = bodyObject(body, 'Keyknox v2 push');
  return {
    root: part(b.root, 'root'),
    path: part(b.path, 'path'),
    key: part(b.key, 'key'),
    identities: readers(b.identities),
    meta: content(b.meta, 'meta'),
    value: content(b.value, 'value'),
  };
}

export function parseV2Pull(body: unknown): V2Pull {
  const b = bodyObject(body, 'Keyknox v2 pull');
  const identity = optionalPart(b.identity, 'identity');
  const address = {
    root: part(b.root, 'root'),
    path: part(b.path, 'path'),
    key: part(b.key, 'key'),
  };
  return identity === undefined ? address : { ...address, identity };
}

export function parseV2Keys(body: unknown): V2Keys {
  return filter(bodyObject(body, 'Keyknox v2 keys'), false);
}

export function parseV2Reset(body: unknown): V2Reset {
  return filter(bodyObject(body, 'Keyknox v2 reset'), true);
}

/**
 * The `Virgil-Keyknox-Previous-Hash` header: its value, or none when absent or empty (the JS
 * client sends it only when it has a hash). Repeated headers arrive joined by ", " and so name
 * no hash a server gives: a conflict.
 */
export const parsePreviousHash = (header: string | undefined): string | undefined =>
  header === undefined || header === '' ? undefined : header;

function filter(b: Record<string, unknown>, withKey: boolean): V2Reset {
  const root = optionalPart(b.root, 'root');
  const path = optionalPart(b.path, 'path');
  const key = withKey ? optionalPart(b.key, 'key') : undefined;
  const identity = optionalPart(b.identity, 'identity');
  if (path !== undefined && root === undefined)
    invalid('KEYKNOX_ADDRESS_INVALID', 'path needs root');
  if (key !== undefined && path === undefined) invalid('KEYKNOX_ADDRESS_INVALID', 'key needs path');
  return {
    ...(root === undefined ? {} : { root }),
    ...(path === undefined ? {} : { path }),
    ...(key === undefined ? {} : { key }),
    ...(identity === undefined ? {} : { identity }),
  };
}

function content(field: unknown, name: string): Uint8Array {
  const bytes = typeof field === 'string' ? decodeBase64(field) : undefined;
  if (bytes === undefined || bytes.byteLength === 0)
    invalid('KEYKNOX_VALUE_INVALID', `"${name}" must be a non-empty base64 string.`);
  return bytes;
}

/** A root, path or key (`name`), as a push must give it; KEYKNOX_ADDRESS_INVALID otherwise. */
export function part(field: unknown, name: string): string {
  if (typeof field !== 'string' || field === '' || utf8Length(field) > LIMITS.identityMax)
    invalid(
      'KEYKNOX_ADDRESS_INVALID',
      `"${name}" must be a non-empty string of at most ${LIMITS.identityMax} bytes.`,
    );
  if (!isPortableText(field))
    invalid('KEYKNOX_ADDRESS_INVALID', `"${name}" must be well-formed Unicode without U+0000.`);
  return field;
}

function optionalPart(field: unknown, name: string): string | undefined {
  return field === undefined || field === null || field === '' ? undefined : part(field, name);
}

/** A list of readers, as a push must give it; KEYKNOX_IDENTITIES_INVALID otherwise. */
export function readers(field: unknown): string[] {
  if (!Array.isArray(field) || field.length > LIMITS.keyknoxReadersMax)
    invalid(
      'KEYKNOX_IDENTITIES_INVALID',
      `"identities" must be a list of at most ${LIMITS.keyknoxReadersMax} identities.`,
    );
  const out = new Set<string>();
  for (const item of field as unknown[]) {
    if (typeof item !== 'string' || item === '' || utf8Length(item) > LIMITS.identityMax)
      invalid('KEYKNOX_IDENTITIES_INVALID', `"identities" holds an item that is not an identity.`);
    if (!isPortableText(item))
      invalid(
        'KEYKNOX_IDENTITIES_INVALID',
        `"identities" holds an item that is not well-formed Unicode without U+0000.`,
      );
    out.add(item);
  }
  return [...out];
}

/**
 * KEYKNOX_ADDRESS_INVALID unless an address's parts (v1: app, identity; v2: app, owner, root,
 * path, key) hold LIMITS.keyknoxAddressMax bytes of UTF-8 at most together: what every engine
 * keys a blob or an entry by, PostgreSQL's index included (limits.ts). Checked before a push
 * stores anything and on every import line, whatever the engine.
 */
export function checkAddressSize(parts: readonly string[]): void {
  const bytes = parts.reduce((n, p) => n + utf8Length(p), 0);
  if (bytes > LIMITS.keyknoxAddressMax)
    invalid(
      'KEYKNOX_ADDRESS_INVALID',
      `An address (the token's app and identity, then root, path and key) holds at most ${LIMITS.keyknoxAddressMax} bytes together, not ${bytes}.`,
    );
}

function invalid(code: ErrorCode, message: string): never {
  throw new CardsError(code, message);
}
