/**
 * The create path's self-signature rule (spec 2.3 rule 2, docs/errors.md 40021): the owner's
 * signature must verify with the card's own key, of whichever type the stock client made
 * (crypto/card-key.ts). The verdict is the same one `cards inspect` shows, so the reason in
 * the refusal is the reason inspect would give. A key whose type cannot be checked is refused
 * with KEY_TYPE_UNSUPPORTED: no card is stored unless its self signature was verified.
 */
import type { CardSignature } from '../core/card.js';
import { CardsError } from '../core/errors.js';
import type { Snapshot } from '../core/snapshot.js';
import {
  isKeyProblem,
  ownerKey,
  verifySignature,
  type SignatureVerdict,
} from '../crypto/verify-card.js';

/**
 * Throws SIGNATURE_INVALID (or KEY_TYPE_UNSUPPORTED) unless `entry` is the owner's valid
 * signature. Synchronous for every key type but the Falcon hybrid, which returns a promise.
 */
export function checkSelfSignature(snapshot: Snapshot, entry: CardSignature): void | Promise<void> {
  const key = ownerKey(snapshot);
  if (isKeyProblem(key))
    throw new CardsError(key.code, `Self signature verification failed: ${key.reason}.`);
  const settle = (verdict: SignatureVerdict): void => {
    if (verdict.status !== 'valid')
      throw new CardsError(
        'SIGNATURE_INVALID',
        `Self signature verification failed: ${verdict.reason}.`,
      );
  };
  const verdict = verifySignature(key, snapshot, entry);
  return verdict instanceof Promise ? verdict.then(settle) : settle(verdict);
}
