/**
 * Content snapshots (spec 2.2): build, encode, decode and validate.
 *
 * A snapshot, once made, is opaque bytes: `decodeSnapshot` keeps the bytes it was given and
 * only reads fields out of them. Validation follows the deployed service's order (docs/errors.md):
 * parse → public key length → identity → previous id → created_at → version. The parse is strict
 * (strict-json.ts) so that no two parsers read one card two ways: a name twice, a byte-order mark
 * or a name that differs from a field's only in case (which Go's encoding/json reads as the field)
 * is not JSON (40003), a string that is not well-formed Unicode or holds U+0000 is 40091, and
 * created_at is an integer written as digits alone (40018). Pure: no I/O, no clock (created_at is
 * passed in).
 */
import { CardsError } from './errors.js';
import { decodeBase64, decodeUtf8, encodeBase64, utf8, utf8Length } from './encoding.js';
import { CARD_ID_PATTERN, LIMITS, SNAPSHOT_VERSION } from './limits.js';
import { isEd25519Spki, ED25519_SPKI_LENGTH } from './spki.js';
import { parseStrictJson, StrictJsonError } from './strict-json.js';

export interface SnapshotFields {
  /** DER SPKI bytes of the owner's key; empty in a revoking card. */
  readonly publicKey: Uint8Array;
  readonly identity: string;
  /** Lowercase card id, or undefined when the card replaces nothing. */
  readonly previousCardId: string | undefined;
  readonly version: string;
  /** UNIX seconds. */
  readonly createdAt: number;
}

export interface Snapshot extends SnapshotFields {
  /** The snapshot bytes exactly as made or received. */
  readonly bytes: Uint8Array;
}

/**
 * What the snapshot is for: a `card` must carry a public key, a `revocation` must not and must
 * name the card it revokes; `any` (inspecting a stored card) accepts both.
 */
export type SnapshotPurpose = 'card' | 'revocation' | 'any';

export interface BuildSnapshotOptions {
  publicKey?: Uint8Array;
  identity: string;
  previousCardId?: string;
  createdAt: number;
}

/** Builds snapshot bytes; the result is validated exactly like a received one. */
export function buildSnapshot(options: BuildSnapshotOptions): Snapshot {
  const json: Record<string, unknown> = {
    identity: options.identity,
    public_key: options.publicKey?.byteLength ? encodeBase64(options.publicKey) : '',
    version: SNAPSHOT_VERSION,
    created_at: options.createdAt,
  };
  if (options.previousCardId !== undefined) json.previous_card_id = options.previousCardId;
  const purpose: SnapshotPurpose = json.public_key === '' ? 'revocation' : 'card';
  return parseSnapshot(utf8(JSON.stringify(json)), purpose);
}

export interface DecodeSnapshotOptions {
  /**
   * The identity the snapshot must carry (the request token's, spec 5.3): checked right after
   * the snapshot's own identity checks, where the deployed service checks it (40034).
   */
  readonly expectedIdentity?: string;
}

/** Decodes the wire `content_snapshot` string (40001 empty, 40002 not base64). */
export function decodeSnapshot(
  contentSnapshot: string,
  purpose: SnapshotPurpose,
  options: DecodeSnapshotOptions = {},
): Snapshot {
  if (contentSnapshot.length === 0) throw new CardsError('SNAPSHOT_EMPTY');
  const bytes = decodeBase64(contentSnapshot);
  if (!bytes) throw new CardsError('SNAPSHOT_NOT_BASE64');
  if (bytes.byteLength === 0) throw new CardsError('SNAPSHOT_EMPTY');
  return parseSnapshot(bytes, purpose, options);
}

export const encodeSnapshot = (snapshot: Snapshot): string => encodeBase64(snapshot.bytes);

const fieldType = (name: string, expected: string, value: unknown): CardsError =>
  new CardsError(
    'BODY_PARSE',
    `content snapshot: ${name} must be ${expected}, got ${value === null ? 'null' : typeof value}`,
  );

/** A snapshot's JSON object, and the literal of each of its number members. */
interface SnapshotJson {
  readonly raw: Record<string, unknown>;
  readonly numberLiterals: ReadonlyMap<string, string>;
}

/**
 * Reads the JSON object out of snapshot bytes, strictly: 40003 when it is not UTF-8 JSON (a
 * name twice, a byte-order mark included), 40091 for a string that is not portable text,
 * 30001 when it is not an object.
 */
function readJsonObject(bytes: Uint8Array): SnapshotJson {
  const text = decodeUtf8(bytes);
  if (text === undefined)
    throw new CardsError('SNAPSHOT_NOT_JSON', 'Content snapshot is not UTF-8 text.');
  let json;
  try {
    json = parseStrictJson(text);
  } catch (err) {
    if (!(err instanceof StrictJsonError)) throw err;
    if (err.problem === 'text')
      throw new CardsError(
        'TEXT_NOT_UNICODE',
        `Text is incorrect. It must be well-formed Unicode without U+0000: the content snapshot holds ${err.message}.`,
      );
    throw new CardsError(
      'SNAPSHOT_NOT_JSON',
      `Content snapshot is not a base64-encoded JSON message (${err.message}).`,
    );
  }
  const raw = json.value;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new CardsError('BODY_PARSE', 'content snapshot: expected a JSON object');
  }
  checkFieldNames(raw as Record<string, unknown>);
  return { raw: raw as Record<string, unknown>, numberLiterals: json.numberLiterals };
}

/** The names of a snapshot's fields (spec 2.2). */
const FIELD_NAMES = ['identity', 'public_key', 'version', 'created_at', 'previous_card_id'];

/**
 * A name folded as a case-insensitive parser compares names: Go's encoding/json (the stock Go
 * SDK's) matches a member to a field by Unicode simple case folding, so "IDENTITY", "Identity"
 * and "public_\u212Aey" (KELVIN SIGN) fill the field "identity" or "public_key" there. Folding
 * through upper then lower case maps every such name (and a few more) to the field's.
 */
const folded = (name: string): string => name.toUpperCase().toLowerCase();

const FOLDED_FIELDS = new Map(FIELD_NAMES.map((name) => [folded(name), name]));

/**
 * 40003 for a name that is not a field's but that a case-insensitive parser reads as one: this
 * reader and the stock JavaScript client would take the field's own member (or none), Go's the
 * other, so one card would be two, such as alice's for the service and bob's for a Go client.
 */
function checkFieldNames(raw: Record<string, unknown>): void {
  for (const name of Object.keys(raw)) {
    const field = FOLDED_FIELDS.get(folded(name));
    if (field !== undefined && field !== name)
      throw new CardsError(
        'SNAPSHOT_NOT_JSON',
        `Content snapshot is not a base64-encoded JSON message (the name ${JSON.stringify(name)}, which a case-insensitive parser reads as "${field}").`,
      );
  }
}

/**
 * 40092 for snapshot bytes longer than one transparency log entry (LIMITS.snapshotMax), before
 * they are read: every card the registry stores is logged, so one it could not log is refused
 * on every path (create, revoke, import), whatever the engine.
 */
function checkSnapshotSize(bytes: Uint8Array): void {
  if (bytes.byteLength > LIMITS.snapshotMax)
    throw new CardsError(
      'SNAPSHOT_TOO_LONG',
      `Content snapshot is too long: ${bytes.byteLength} bytes, at most ${LIMITS.snapshotMax} (one transparency log entry).`,
    );
}

/** Parses and validates snapshot bytes without copying or re-serialising them. */
export function parseSnapshot(
  bytes: Uint8Array,
  purpose: SnapshotPurpose,
  options: DecodeSnapshotOptions = {},
): Snapshot {
  checkSnapshotSize(bytes);
  const { raw, numberLiterals } = readJsonObject(bytes);
  const publicKey = readPublicKey(raw.public_key, purpose);
  const identity = readIdentity(raw.identity);
  if (options.expectedIdentity !== undefined && identity !== options.expectedIdentity) {
    throw new CardsError(
      'IDENTITY_MISMATCH',
      "Identity is incorrect. It must match request identity provided in JWT (the snapshot's identity is not the token's).",
    );
  }
  const previousCardId = readPreviousCardId(raw.previous_card_id, purpose);
  const createdAt = readCreatedAt(raw.created_at, numberLiterals.get('created_at'));
  readVersion(raw.version);
  return { bytes, publicKey, identity, previousCardId, version: SNAPSHOT_VERSION, createdAt };
}

export interface SnapshotProblem {
  /** The wire field at fault (`content_snapshot` when the snapshot cannot be read at all). */
  readonly field: string;
  readonly error: CardsError;
}

export interface SnapshotReport {
  /** The decoded bytes, when the string was base64. */
  readonly bytes: Uint8Array | undefined;
  /** The snapshot's JSON fields as found, when it was a JSON object. */
  readonly fields: Record<string, unknown> | undefined;
  readonly problems: SnapshotProblem[];
}

/**
 * Every problem of a snapshot, one per field, with the same checks as `decodeSnapshot` (which
 * stops at the first, as the service does). A snapshot with an empty key is judged as a
 * revoking card. Used by `cards inspect` to list all that is wrong at once.
 */
export function reportSnapshot(contentSnapshot: string): SnapshotReport {
  const fail = (error: unknown, bytes?: Uint8Array): SnapshotReport => ({
    bytes,
    fields: undefined,
    problems: [{ field: 'content_snapshot', error: asCardsError(error) }],
  });
  if (contentSnapshot.length === 0) return fail(new CardsError('SNAPSHOT_EMPTY'));
  const bytes = decodeBase64(contentSnapshot);
  if (!bytes) return fail(new CardsError('SNAPSHOT_NOT_BASE64'));
  let json: SnapshotJson;
  try {
    checkSnapshotSize(bytes);
    json = readJsonObject(bytes);
  } catch (err) {
    return fail(err, bytes);
  }
  const { raw, numberLiterals } = json;
  const purpose: SnapshotPurpose = (raw.public_key ?? '') === '' ? 'revocation' : 'card';
  const checks: [string, () => unknown][] = [
    ['public_key', () => readPublicKey(raw.public_key, purpose)],
    ['identity', () => readIdentity(raw.identity)],
    ['previous_card_id', () => readPreviousCardId(raw.previous_card_id, purpose)],
    ['created_at', () => readCreatedAt(raw.created_at, numberLiterals.get('created_at'))],
    ['version', () => readVersion(raw.version)],
  ];
  const problems: SnapshotProblem[] = [];
  for (const [field, check] of checks) {
    try {
      check();
    } catch (err) {
      problems.push({ field, error: asCardsError(err) });
    }
  }
  return { bytes, fields: raw, problems };
}

const asCardsError = (err: unknown): CardsError => {
  if (err instanceof CardsError) return err;
  throw err;
};

function readVersion(value: unknown): void {
  if (value === SNAPSHOT_VERSION) return;
  if (value !== undefined && typeof value !== 'string')
    throw fieldType('version', 'a string', value);
  throw new CardsError(
    'VERSION_INVALID',
    `Card version must be 5.0, got ${JSON.stringify(value ?? null)}.`,
  );
}

function readPublicKey(value: unknown, purpose: SnapshotPurpose): Uint8Array {
  if (value !== undefined && value !== null && typeof value !== 'string') {
    throw fieldType('public_key', 'a base64 string', value);
  }
  const text = value ?? '';
  if (text === '') {
    if (purpose === 'card') {
      throw new CardsError(
        'PUBLIC_KEY_TOO_SHORT',
        'Public key is missing; a card needs one (16-4096 bytes).',
      );
    }
    return new Uint8Array(0);
  }
  if (purpose === 'revocation') throw new CardsError('PUBLIC_KEY_NOT_EMPTY');
  const key = decodeBase64(text);
  if (!key) throw new CardsError('PUBLIC_KEY_NOT_BASE64');
  if (key.byteLength < LIMITS.publicKeyMin) {
    throw new CardsError(
      'PUBLIC_KEY_TOO_SHORT',
      `Public key is less than 16 bytes (got ${key.byteLength}).`,
    );
  }
  if (key.byteLength > LIMITS.publicKeyMax) {
    throw new CardsError(
      'PUBLIC_KEY_TOO_LONG',
      `Public key exceeds 4096 bytes (got ${key.byteLength}).`,
    );
  }
  if (isEd25519Spki(key) === 'malformed') {
    throw new CardsError(
      'PUBLIC_KEY_NOT_BASE64',
      `Public key names Ed25519 but is not a ${ED25519_SPKI_LENGTH}-byte DER SubjectPublicKeyInfo (got ${key.byteLength} bytes).`,
    );
  }
  return key;
}

function readIdentity(value: unknown): string {
  if (value === undefined || value === null || value === '') throw new CardsError('IDENTITY_EMPTY');
  if (typeof value !== 'string') throw fieldType('identity', 'a string', value);
  const length = utf8Length(value);
  if (length > LIMITS.identityMax) {
    throw new CardsError(
      'IDENTITY_TOO_LONG',
      `Identity is incorrect. It mustn't exceed 1024 bytes (got ${length}).`,
    );
  }
  return value;
}

function readPreviousCardId(value: unknown, purpose: SnapshotPurpose): string | undefined {
  if (value === undefined || value === null || value === '') {
    if (purpose === 'revocation') throw new CardsError('REVOKE_PREVIOUS_MISSING');
    return undefined;
  }
  if (typeof value !== 'string') throw fieldType('previous_card_id', 'a string', value);
  if (!CARD_ID_PATTERN.test(value)) {
    throw new CardsError(
      'PREVIOUS_ID_INVALID',
      `Previous Card ID is not a valid ID: expected 64 hexadecimal characters, got ${value.length} characters.`,
    );
  }
  // Every id on the wire is lowercase hex (spec 2.4), and the stock client links chains by
  // exact string: an uppercase previous id would leave the replaced card looking current to it.
  if (value !== value.toLowerCase()) {
    throw new CardsError(
      'PREVIOUS_ID_INVALID',
      'Previous Card ID is not a valid ID: expected lowercase hexadecimal characters, as card ids are written.',
    );
  }
  return value;
}

/** `literal`: the number as written in the JSON text (spec 2.2: a uint64, so digits alone). */
function readCreatedAt(value: unknown, literal: string | undefined): number {
  if (value === undefined || value === null)
    throw new CardsError('CREATED_AT_INVALID', 'Creation time is missing.');
  if (typeof value !== 'number') throw fieldType('created_at', 'an integer', value);
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new CardsError(
      'CREATED_AT_INVALID',
      `Creation time is incorrect: expected an integer > 0, got ${value}.`,
    );
  }
  if (literal !== undefined && !/^[1-9][0-9]*$/.test(literal)) {
    throw new CardsError(
      'CREATED_AT_INVALID',
      `Creation time is incorrect: expected an integer written as digits alone, got ${literal}.`,
    );
  }
  return value;
}
