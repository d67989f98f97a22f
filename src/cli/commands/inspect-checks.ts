/**
 * The limit checks of `cards inspect` (spec 2.2, 2.3, 8): unlike the core's validators, which
 * stop at the first problem (as the service does), these list every violation of a card.
 */
import type { CardSignature, RawSignature } from '../../core/card.js';
import { decodeBase64, decodeUtf8, utf8Length } from '../../core/encoding.js';
import { ERRORS, type ErrorCode } from '../../core/errors.js';
import { CARD_ID_PATTERN, LIMITS, SELF_SIGNER, SNAPSHOT_VERSION } from '../../core/limits.js';

export interface Violation {
  field: string;
  code: ErrorCode;
  wire: number;
  message: string;
}

const violation = (field: string, code: ErrorCode, message?: string): Violation => ({
  field,
  code,
  wire: ERRORS[code].wire,
  message: message ?? ERRORS[code].message,
});

/** The snapshot's fields as found, checked one by one. */
export function checkSnapshot(contentSnapshot: unknown): {
  fields: Record<string, unknown> | null;
  bytes: Uint8Array | null;
  violations: Violation[];
} {
  if (typeof contentSnapshot !== 'string' || contentSnapshot === '')
    return {
      fields: null,
      bytes: null,
      violations: [violation('content_snapshot', 'SNAPSHOT_EMPTY')],
    };
  const bytes = decodeBase64(contentSnapshot);
  if (!bytes)
    return {
      fields: null,
      bytes: null,
      violations: [violation('content_snapshot', 'SNAPSHOT_NOT_BASE64')],
    };
  const text = decodeUtf8(bytes);
  let json: unknown;
  try {
    json = text === undefined ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    return {
      fields: null,
      bytes,
      violations: [violation('content_snapshot', 'SNAPSHOT_NOT_JSON')],
    };
  const fields = json as Record<string, unknown>;
  const out: Violation[] = [];
  const key = fields.public_key ?? '';
  if (typeof key !== 'string') out.push(violation('public_key', 'PUBLIC_KEY_NOT_BASE64'));
  else if (key !== '') {
    const keyBytes = decodeBase64(key);
    if (!keyBytes) out.push(violation('public_key', 'PUBLIC_KEY_NOT_BASE64'));
    else if (keyBytes.byteLength < LIMITS.publicKeyMin)
      out.push(violation('public_key', 'PUBLIC_KEY_TOO_SHORT'));
    else if (keyBytes.byteLength > LIMITS.publicKeyMax)
      out.push(violation('public_key', 'PUBLIC_KEY_TOO_LONG'));
  } else if (!fields.previous_card_id) {
    out.push(
      violation(
        'public_key',
        'PUBLIC_KEY_TOO_SHORT',
        'Public key is empty and the card revokes nothing.',
      ),
    );
  }
  const identity = fields.identity;
  if (typeof identity !== 'string' || identity === '')
    out.push(violation('identity', 'IDENTITY_EMPTY'));
  else if (utf8Length(identity) > LIMITS.identityMax)
    out.push(violation('identity', 'IDENTITY_TOO_LONG'));
  const previous = fields.previous_card_id;
  if (
    previous !== undefined &&
    previous !== null &&
    previous !== '' &&
    !(typeof previous === 'string' && CARD_ID_PATTERN.test(previous))
  )
    out.push(violation('previous_card_id', 'PREVIOUS_ID_INVALID'));
  const createdAt = fields.created_at;
  if (typeof createdAt !== 'number' || !Number.isSafeInteger(createdAt) || createdAt <= 0)
    out.push(violation('created_at', 'CREATED_AT_INVALID'));
  if (fields.version !== SNAPSHOT_VERSION) out.push(violation('version', 'VERSION_INVALID'));
  return { fields, bytes, violations: out };
}

/** Signature entries decoded as far as they go, with every violation listed. */
export function checkSignatures(
  list: unknown,
  revoking: boolean,
): { entries: (CardSignature | { signer: string; broken: string })[]; violations: Violation[] } {
  const out: Violation[] = [];
  if (list !== undefined && !Array.isArray(list))
    return {
      entries: [],
      violations: [violation('signatures', 'BODY_PARSE', 'signatures must be an array.')],
    };
  const items = (list ?? []) as unknown[];
  if (items.length > LIMITS.signaturesMax) out.push(violation('signatures', 'SIGNATURES_TOO_MANY'));
  const entries = items.map((item, index) => {
    const where = `signatures[${index}]`;
    const raw = (item ?? {}) as Partial<RawSignature>;
    const signer = typeof raw.signer === 'string' ? raw.signer : '';
    if (signer === '') out.push(violation(`${where}.signer`, 'SIGNER_EMPTY'));
    else if (utf8Length(signer) > LIMITS.signerMax)
      out.push(violation(`${where}.signer`, 'SIGNER_TOO_LONG'));
    let extra: Uint8Array = new Uint8Array(0);
    if (raw.snapshot !== undefined && raw.snapshot !== '') {
      const decoded = typeof raw.snapshot === 'string' ? decodeBase64(raw.snapshot) : undefined;
      if (!decoded) out.push(violation(`${where}.snapshot`, 'EXTRA_SNAPSHOT_INVALID'));
      else if (decoded.byteLength > LIMITS.extraSnapshotMax)
        out.push(violation(`${where}.snapshot`, 'EXTRA_SNAPSHOT_TOO_LONG'));
      else extra = decoded;
    }
    const signature =
      typeof raw.signature === 'string' && raw.signature !== ''
        ? decodeBase64(raw.signature)
        : undefined;
    if (!signature) {
      const code: ErrorCode = raw.signature ? 'SIGNATURE_NOT_BASE64' : 'SIGNATURE_MISSING';
      out.push(violation(`${where}.signature`, code));
      return { signer, broken: ERRORS[code].message };
    }
    const entry: CardSignature = {
      signer,
      signature,
      snapshot: extra,
      raw: { signer, signature: raw.signature as string },
    };
    return entry;
  });
  const selfCount = entries.filter((e) => e.signer === SELF_SIGNER).length;
  if (selfCount === 0 && !revoking) out.push(violation('signatures', 'SELF_SIGNATURE_MISSING'));
  if (selfCount > 1) out.push(violation('signatures', 'SELF_SIGNATURE_DUPLICATE'));
  return { entries, violations: out };
}
