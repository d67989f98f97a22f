/**
 * The create path's self-signature rule (spec 2.3 rule 2, wire-facts 40021): the owner's
 * signature must verify with the card's own key. The verdict is the same one `cards inspect`
 * shows, so the reason in the refusal is the reason inspect would give.
 */
import type { CardSignature } from '../core/card.js';
import { CardsError } from '../core/errors.js';
import type { Snapshot } from '../core/snapshot.js';
import { ownerKey, verifySignature } from '../crypto/verify-card.js';

/** Throws SIGNATURE_INVALID unless `entry` is the card owner's valid signature. */
export function checkSelfSignature(snapshot: Snapshot, entry: CardSignature): void {
  const key = ownerKey(snapshot);
  const verdict = typeof key === 'string' ? undefined : verifySignature(key, snapshot, entry);
  if (verdict?.status === 'valid') return;
  const reason = verdict?.reason ?? (key as string);
  throw new CardsError('SIGNATURE_INVALID', `Self signature verification failed: ${reason}.`);
}
