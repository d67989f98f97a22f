/**
 * Signing cards: the owner's and other signers' entries (spec 2.3 rule 2) and the service's
 * own entry over the snapshot alone (docs/http.md "Cryptography").
 */
import type { RawCard, RawSignature } from '../core/card.js';
import { encodeBase64 } from '../core/encoding.js';
import { SELF_SIGNER } from '../core/limits.js';
import type { Snapshot } from '../core/snapshot.js';
import { signParts } from './ed25519.js';
import { isOtherKey, type CardPrivateKey } from './signing-key.js';

export interface SignerInput {
  readonly signer: string;
  readonly key: CardPrivateKey;
  /** Extra snapshot stored on behalf of the signer. */
  readonly snapshot?: Uint8Array;
}

export function signEntry(snapshot: Snapshot, input: SignerInput): RawSignature {
  const extra = input.snapshot ?? new Uint8Array(0);
  const entry: RawSignature = {
    signer: input.signer,
    signature: encodeBase64(
      isOtherKey(input.key)
        ? input.key.signParts(snapshot.bytes, extra)
        : signParts(input.key, snapshot.bytes, extra),
    ),
  };
  if (extra.byteLength > 0) entry.snapshot = encodeBase64(extra);
  return entry;
}

/** A card with the owner's self signature (when `self` is given) and any other signers'. */
export function signCard(
  snapshot: Snapshot,
  signers: { self?: CardPrivateKey; others?: readonly SignerInput[] },
): RawCard {
  const signatures: RawSignature[] = [];
  if (signers.self)
    signatures.push(signEntry(snapshot, { signer: SELF_SIGNER, key: signers.self }));
  for (const other of signers.others ?? []) signatures.push(signEntry(snapshot, other));
  return { content_snapshot: encodeBase64(snapshot.bytes), signatures };
}
