/**
 * Verdicts on a card's signatures, shared by the server (create) and `cards inspect`.
 * One verdict per signature entry: who signed, whether it holds, and why not.
 */
import type { CardSignature } from '../core/card.js';
import type { Snapshot } from '../core/snapshot.js';
import { CardsError } from '../core/errors.js';
import { SELF_SIGNER } from '../core/limits.js';
import { isEd25519Spki } from './der.js';
import { verifyParts } from './ed25519.js';
import { PublicKey } from './keys.js';

export type VerdictStatus = 'valid' | 'invalid' | 'unchecked';

export interface SignatureVerdict {
  readonly signer: string;
  readonly status: VerdictStatus;
  /** Why, in words a person can act on. */
  readonly reason: string;
}

export interface VerifyCardOptions {
  /** Keys for signers other than `self`, by signer name (the service's, an app's). */
  readonly trusted?: ReadonlyMap<string, PublicKey>;
}

/** The card owner's key, or a reason it cannot verify anything. */
export function ownerKey(snapshot: Snapshot): PublicKey | string {
  if (snapshot.publicKey.byteLength === 0) return 'the card has no public key (a revoking card)';
  if (isEd25519Spki(snapshot.publicKey) !== 'yes')
    return 'the card key is not an Ed25519 key; only Ed25519 is supported';
  try {
    return PublicKey.fromSpki(snapshot.publicKey);
  } catch (err) {
    if (err instanceof CardsError) return `the card key is unusable: ${err.message}`;
    throw err;
  }
}

export function verifySignature(
  key: PublicKey,
  snapshot: Snapshot,
  entry: CardSignature,
): SignatureVerdict {
  try {
    const ok = verifyParts(key, entry.signature, snapshot.bytes, entry.snapshot);
    return {
      signer: entry.signer,
      status: ok ? 'valid' : 'invalid',
      reason: ok ? 'signature verifies' : 'signature does not match the snapshot and key',
    };
  } catch (err) {
    if (err instanceof CardsError)
      return { signer: entry.signer, status: 'invalid', reason: err.message };
    throw err;
  }
}

export function verifyCardSignatures(
  snapshot: Snapshot,
  signatures: readonly CardSignature[],
  options: VerifyCardOptions = {},
): SignatureVerdict[] {
  let self: PublicKey | string | undefined;
  return signatures.map((entry) => {
    let key: PublicKey | string | undefined;
    if (entry.signer === SELF_SIGNER) key = self ??= ownerKey(snapshot);
    else key = options.trusted?.get(entry.signer);
    if (key === undefined)
      return {
        signer: entry.signer,
        status: 'unchecked',
        reason: `no trusted key given for signer "${entry.signer}"`,
      };
    if (typeof key === 'string') return { signer: entry.signer, status: 'invalid', reason: key };
    return verifySignature(key, snapshot, entry);
  });
}
