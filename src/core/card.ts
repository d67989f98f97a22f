/**
 * The Card wire object (spec 2.1, 2.3): parsing a request body into typed form, and the
 * signature-list rules of the deployed service, in its order (docs/errors.md).
 * Pure: validates shapes and limits, decodes base64; signature maths lives in src/crypto.
 */
import { CardsError, type ErrorCode } from './errors.js';
import { decodeBase64, utf8Length } from './encoding.js';
import { isObject } from './json.js';
import { LIMITS, SELF_SIGNER } from './limits.js';

/** A signature entry as it travels (spec 2.3). */
export interface RawSignature {
  signer: string;
  signature: string;
  snapshot?: string;
}

/** A card as it travels (spec 2.1). */
export interface RawCard {
  content_snapshot: string;
  signatures: RawSignature[];
}

/**
 * Whether `value` has a wire card's shape (spec 2.1): a `content_snapshot` string and a
 * `signatures` array. Checks the shape only; parseRawCard and parseSignatures check the rest.
 */
export const isRawCard = (value: unknown): value is RawCard =>
  isObject(value) && typeof value.content_snapshot === 'string' && Array.isArray(value.signatures);

/** A signature entry with its base64 decoded. */
export interface CardSignature {
  readonly signer: string;
  readonly signature: Uint8Array;
  /** Extra snapshot bytes; empty when the entry has none. */
  readonly snapshot: Uint8Array;
  /** The entry exactly as received, for storing and echoing back. */
  readonly raw: RawSignature;
}

/**
 * Checks the JSON shape of a card body (30001 on a wrong shape or type). `signatures` may be
 * absent; an absent list is returned as `undefined` so that create can refuse it as 40022.
 */
export function parseRawCard(body: unknown): {
  content_snapshot: string;
  signatures: unknown[] | undefined;
} {
  if (!isObject(body))
    throw new CardsError(
      'BODY_PARSE',
      'Request body must be a JSON object with content_snapshot and signatures.',
    );
  const { content_snapshot: snapshot, signatures } = body;
  if (typeof snapshot !== 'string') {
    throw new CardsError(
      'BODY_PARSE',
      snapshot === undefined
        ? 'content_snapshot is missing.'
        : 'content_snapshot must be a string.',
    );
  }
  if (signatures !== undefined && signatures !== null && !Array.isArray(signatures)) {
    throw new CardsError('BODY_PARSE', 'signatures must be an array.');
  }
  return { content_snapshot: snapshot, signatures: signatures ?? undefined };
}

export interface ParseSignaturesOptions {
  /** The service's own signer name, which clients may not use (40007). */
  reservedSigner: string;
  /** On create the list must hold exactly one `self`; a revoking card's list is optional. */
  requireSelf: boolean;
}

/** Validates and decodes a signature list in the deployed service's order. */
export function parseSignatures(
  list: unknown[] | undefined,
  options: ParseSignaturesOptions,
): CardSignature[] {
  if (list === undefined || list.length === 0) {
    if (options.requireSelf) throw new CardsError('SIGNATURES_EMPTY');
    return [];
  }
  if (list.length > LIMITS.signaturesMax) {
    throw new CardsError(
      'SIGNATURES_TOO_MANY',
      `Signature list must contain at most eight entries (got ${list.length}).`,
    );
  }
  const parsed = list.map((entry, index) => parseSignature(entry, index, options.reservedSigner));
  const selfCount = parsed.filter((s) => s.signer === SELF_SIGNER).length;
  if (options.requireSelf && selfCount === 0) throw new CardsError('SELF_SIGNATURE_MISSING');
  if (selfCount > 1) throw new CardsError('SELF_SIGNATURE_DUPLICATE');
  return parsed;
}

export interface SignatureProblem {
  /** `signatures` for the list as a whole, `signatures[i]` for one entry. */
  readonly field: string;
  readonly error: CardsError;
}

/**
 * Every problem of a signature list, with the same checks as `parseSignatures` (which stops at
 * the first, as the service does): the list's own, then the first of each entry. Entries that
 * decode are returned for verification. Used by `cards inspect`.
 */
export function reportSignatures(
  list: unknown,
  options: ParseSignaturesOptions,
): { entries: (CardSignature | SignatureProblem)[]; problems: SignatureProblem[] } {
  if (list !== undefined && list !== null && !Array.isArray(list)) {
    const error = new CardsError('BODY_PARSE', 'signatures must be an array.');
    return { entries: [], problems: [{ field: 'signatures', error }] };
  }
  const items = (list ?? []) as unknown[];
  const problems: SignatureProblem[] = [];
  const listProblem = (code: ErrorCode) =>
    problems.push({ field: 'signatures', error: new CardsError(code) });
  if (items.length === 0 && options.requireSelf) listProblem('SIGNATURES_EMPTY');
  if (items.length > LIMITS.signaturesMax) listProblem('SIGNATURES_TOO_MANY');
  const entries = items.map((item, index): CardSignature | SignatureProblem => {
    try {
      return parseSignature(item, index, options.reservedSigner);
    } catch (err) {
      if (!(err instanceof CardsError)) throw err;
      const problem = { field: `signatures[${index}]`, error: err };
      problems.push(problem);
      return problem;
    }
  });
  const selfCount = items.filter((item) => isObject(item) && item.signer === SELF_SIGNER).length;
  if (items.length > 0 && options.requireSelf && selfCount === 0)
    listProblem('SELF_SIGNATURE_MISSING');
  if (selfCount > 1) listProblem('SELF_SIGNATURE_DUPLICATE');
  return { entries, problems };
}

function parseSignature(entry: unknown, index: number, reservedSigner: string): CardSignature {
  const where = `signatures[${index}]`;
  if (!isObject(entry))
    throw new CardsError('BODY_PARSE', `${where} must be an object with signer and signature.`);
  const { signer, signature, snapshot } = entry;
  if (signer === undefined || signer === null)
    throw new CardsError('SIGNER_INVALID', `${where}: signer is missing.`);
  if (typeof signer !== 'string')
    throw new CardsError('BODY_PARSE', `${where}: signer must be a string.`);
  if (signer === '') throw new CardsError('SIGNER_EMPTY');
  if (utf8Length(signer) > LIMITS.signerMax) throw new CardsError('SIGNER_TOO_LONG');
  if (signer === reservedSigner) {
    throw new CardsError(
      'SIGNER_INVALID',
      `${where}: signer "${signer}" is the service's own; the service adds that signature itself.`,
    );
  }
  if (signature !== undefined && signature !== null && typeof signature !== 'string') {
    throw new CardsError('BODY_PARSE', `${where}: signature must be a string.`);
  }
  if (!signature)
    throw new CardsError(
      'SIGNATURE_MISSING',
      `Signature is missing in signature entries (${where}, signer "${signer}").`,
    );
  const signatureBytes = decodeBase64(signature);
  if (!signatureBytes)
    throw new CardsError(
      'SIGNATURE_NOT_BASE64',
      `Signature is not a base64-encoded string (${where}).`,
    );

  let extra: Uint8Array = new Uint8Array(0);
  if (snapshot !== undefined && snapshot !== null) {
    if (typeof snapshot !== 'string')
      throw new CardsError('BODY_PARSE', `${where}: snapshot must be a string.`);
    const decoded = decodeBase64(snapshot);
    if (!decoded)
      throw new CardsError(
        'EXTRA_SNAPSHOT_INVALID',
        `Extra content snapshot decoding error (${where}).`,
      );
    if (decoded.byteLength > LIMITS.extraSnapshotMax)
      throw new CardsError('EXTRA_SNAPSHOT_TOO_LONG');
    extra = decoded;
  }
  const raw: RawSignature = { signer, signature };
  if (typeof snapshot === 'string' && snapshot !== '') raw.snapshot = snapshot;
  return { signer, signature: signatureBytes, snapshot: extra, raw };
}
