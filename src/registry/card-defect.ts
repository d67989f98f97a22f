/**
 * What every import checks of a stored card record before it is stored, whichever way it comes
 * (`cards import --store`, `POST /_cards/import`, `cards import --url`): its id is the hash of
 * its snapshot (spec 2.4); the snapshot's identity, previous card and key (none for a revoking
 * card) agree with the record; a card with a key carries a valid self signature (spec 2.3);
 * and its signature list is one create or revoke lets in (the core's parseSignatures: at most
 * eight entries, one self, signers and extra snapshots of 1 to 1,024 bytes, canonical base64),
 * followed by the service's own signature, as every stored card ends (spec 4.1). The service
 * signature is kept as it is: it was made by the service the cards come from.
 */
import { parseSignatures } from '../core/card.js';
import { cardIdOf } from '../core/card-id.js';
import { decodeBase64, utf8Length } from '../core/encoding.js';
import { LIMITS, SELF_SIGNER } from '../core/limits.js';
import { decodeSnapshot } from '../core/snapshot.js';
import type { StoredCard } from '../store/store.js';
import { checkSelfSignature } from './self-signature.js';

/**
 * Why `card` cannot be imported, or undefined when it can. Async: the Falcon hybrid's verdict
 * comes when its verifier has loaded (self-signature.ts), and is awaited like every other.
 */
export async function cardDefect(card: StoredCard): Promise<string | undefined> {
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
  const listDefect = signatureListDefect(card);
  if (listDefect !== undefined) return listDefect;
  if (card.revoking) return undefined;
  const self = card.signatures.find((entry) => entry.signer === 'self');
  if (!self) return 'it has no self signature';
  const signature = decodeBase64(self.signature);
  const extra = self.snapshot === undefined ? new Uint8Array() : decodeBase64(self.snapshot);
  if (!signature || !extra) return 'its self signature is not base64';
  try {
    await checkSelfSignature(snapshot, { signer: 'self', signature, snapshot: extra, raw: self });
  } catch (err) {
    return (err as Error).message;
  }
  return undefined;
}

/**
 * Why the record's signatures are not a list the card routes store: what the client sent, as
 * create (or, for a revoking card, revoke) checks it, then the service's signature, last.
 */
function signatureListDefect(card: StoredCard): string | undefined {
  const all: readonly unknown[] = card.signatures;
  const service = all[all.length - 1] as Record<string, unknown> | undefined;
  if (
    typeof service !== 'object' ||
    service === null ||
    typeof service.signer !== 'string' ||
    service.signer === '' ||
    utf8Length(service.signer) > LIMITS.signerMax ||
    service.signer === SELF_SIGNER ||
    service.snapshot !== undefined ||
    typeof service.signature !== 'string' ||
    !decodeBase64(service.signature)?.byteLength
  )
    return 'its last signature is not the service’s (a signer of 1 to 1,024 bytes other than self, a signature of base64 that is not empty, no snapshot)';
  try {
    parseSignatures(all.slice(0, -1), {
      reservedSigner: service.signer,
      requireSelf: card.revoking !== true,
    });
  } catch (err) {
    return `its signatures are not ones a card route takes (${(err as Error).message})`;
  }
  return undefined;
}
