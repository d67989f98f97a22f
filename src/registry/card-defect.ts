/**
 * What every import checks of a stored card record before it is stored, whichever way it comes
 * (`cards import --store`, `POST /_cards/import`, `cards import --url`): its id is the hash of
 * its snapshot (spec 2.4); the snapshot's identity, previous card and key (none for a revoking
 * card) agree with the record; and a card with a key carries a valid self signature (spec 2.3).
 * The service signature is kept as it is: it was made by the service the cards come from.
 */
import { cardIdOf } from '../core/card-id.js';
import { decodeBase64 } from '../core/encoding.js';
import { decodeSnapshot } from '../core/snapshot.js';
import type { StoredCard } from '../store/store.js';
import { checkSelfSignature } from './self-signature.js';

/** Why `card` cannot be imported, or undefined when it can. */
export function cardDefect(card: StoredCard): string | undefined {
  let snapshot;
  try {
    snapshot = decodeSnapshot(card.content_snapshot, card.revoking ? 'revocation' : 'card');
  } catch (err) {
    return `its snapshot does not decode (${(err as Error).message})`;
  }
  if (cardIdOf(snapshot.bytes) !== card.id) return 'its id is not the hash of its snapshot';
  if (snapshot.identity !== card.identity) return 'its identity is not the snapshot’s';
  if (snapshot.previousCardId !== card.previous_card_id)
    return 'its previous_card_id is not the snapshot’s';
  if ((snapshot.publicKey.byteLength === 0) !== (card.revoking === true))
    return 'its revoking flag does not match the snapshot’s public key';
  if (card.revoking) return undefined;
  const self = card.signatures.find((entry) => entry.signer === 'self');
  if (!self) return 'it has no self signature';
  const signature = decodeBase64(self.signature);
  const extra = self.snapshot === undefined ? new Uint8Array() : decodeBase64(self.snapshot);
  if (!signature || !extra) return 'its self signature is not base64';
  try {
    checkSelfSignature(snapshot, { signer: 'self', signature, snapshot: extra, raw: self });
  } catch (err) {
    return (err as Error).message;
  }
  return undefined;
}
