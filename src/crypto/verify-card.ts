/**
 * Verdicts on a card's signatures, shared by the server (create) and `cards inspect`.
 * One verdict per signature entry: who signed, with what algorithm, whether it holds, and why
 * not. Async because the post-quantum verifier is loaded on first use (card-key.ts); an
 * Ed25519 card never waits on anything but its own check.
 */
import type { CardSignature } from '../core/card.js';
import type { Snapshot } from '../core/snapshot.js';
import { CardsError, type ErrorCode } from '../core/errors.js';
import { SELF_SIGNER } from '../core/limits.js';
import { readCardKey, type CardKey } from './card-key.js';
import { verifyParts } from './ed25519.js';
import type { PublicKey } from './keys.js';

export type VerdictStatus = 'valid' | 'invalid' | 'unchecked';

export interface SignatureVerdict {
  readonly signer: string;
  readonly status: VerdictStatus;
  /** Why, in words a person can act on. */
  readonly reason: string;
  /** The signature algorithm, when the key's type is known ("ECDSA P-256 with SHA-512"). */
  readonly algorithm?: string;
}

export interface VerifyCardOptions {
  /** Keys for signers other than `self`, by signer name (the service's, an app's). */
  readonly trusted?: ReadonlyMap<string, PublicKey>;
}

/** Why a card's own key cannot check anything, with the code a refusal carries. */
export interface KeyProblem {
  readonly code: ErrorCode;
  readonly reason: string;
}

/** The card owner's key, or why it cannot verify anything. */
export function ownerKey(snapshot: Snapshot): CardKey | KeyProblem {
  if (snapshot.publicKey.byteLength === 0)
    return { code: 'SIGNATURE_INVALID', reason: 'the card has no public key (a revoking card)' };
  try {
    return readCardKey(snapshot.publicKey);
  } catch (err) {
    if (!(err instanceof CardsError)) throw err;
    if (err.code === 'KEY_TYPE_UNSUPPORTED') return { code: err.code, reason: err.message };
    return { code: 'SIGNATURE_INVALID', reason: `the card key is unusable: ${err.message}` };
  }
}

const isProblem = (key: CardKey | KeyProblem): key is KeyProblem => 'reason' in key;

/**
 * The verdict on one entry with the card's own key: synchronous for every type but the
 * Falcon hybrid, whose verifier loads on first use (so the registry keeps its arrival-order
 * reservations for every other type).
 */
export function verifySignature(
  key: CardKey,
  snapshot: Snapshot,
  entry: CardSignature,
): SignatureVerdict | Promise<SignatureVerdict> {
  const { signer } = entry;
  const { algorithm } = key;
  const settle = (ok: boolean): SignatureVerdict => {
    const reason = ok ? 'signature verifies' : 'signature does not match the snapshot and key';
    return { signer, status: ok ? 'valid' : 'invalid', reason, algorithm };
  };
  const refuse = (err: unknown): SignatureVerdict => {
    if (err instanceof CardsError)
      return { signer, status: 'invalid', reason: err.message, algorithm };
    throw err;
  };
  let result: boolean | Promise<boolean>;
  try {
    result = key.verify(entry.signature, snapshot.bytes, entry.snapshot);
  } catch (err) {
    return refuse(err);
  }
  return typeof result === 'boolean' ? settle(result) : result.then(settle, refuse);
}

/** A trusted (Ed25519) signer's entry: the service's or an application's. */
function verifyTrusted(key: PublicKey, snapshot: Snapshot, entry: CardSignature): SignatureVerdict {
  const { signer } = entry;
  try {
    const ok = verifyParts(key, entry.signature, snapshot.bytes, entry.snapshot);
    const reason = ok ? 'signature verifies' : 'signature does not match the snapshot and key';
    return { signer, status: ok ? 'valid' : 'invalid', reason, algorithm: 'Ed25519' };
  } catch (err) {
    if (err instanceof CardsError) return { signer, status: 'invalid', reason: err.message };
    throw err;
  }
}

export async function verifyCardSignatures(
  snapshot: Snapshot,
  signatures: readonly CardSignature[],
  options: VerifyCardOptions = {},
): Promise<SignatureVerdict[]> {
  let self: CardKey | KeyProblem | undefined;
  const verdicts: SignatureVerdict[] = [];
  for (const entry of signatures) {
    if (entry.signer === SELF_SIGNER) {
      self ??= ownerKey(snapshot);
      verdicts.push(
        isProblem(self)
          ? { signer: entry.signer, status: 'invalid', reason: self.reason }
          : await verifySignature(self, snapshot, entry),
      );
      continue;
    }
    const key = options.trusted?.get(entry.signer);
    verdicts.push(
      key
        ? verifyTrusted(key, snapshot, entry)
        : {
            signer: entry.signer,
            status: 'unchecked',
            reason: `no trusted key given for signer "${entry.signer}"`,
          },
    );
  }
  return verdicts;
}

export { isProblem as isKeyProblem };
