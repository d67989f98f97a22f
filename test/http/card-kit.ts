/**
 * Cards for tests, made with the project's own core (not the stock client): owner keys, signed
 * cards, replacements, revoking cards, and snapshots with any JSON at all (for the refusals).
 */
import type { RawCard, RawSignature } from '../../src/core/card.js';
import { cardIdOf } from '../../src/core/card-id.js';
import { encodeBase64, utf8 } from '../../src/core/encoding.js';
import { buildSnapshot, type Snapshot } from '../../src/core/snapshot.js';
import { signParts } from '../../src/crypto/ed25519.js';
import { generatePrivateKey, type PrivateKey } from '../../src/crypto/keys.js';
import { signCard } from '../../src/crypto/sign-card.js';

export interface MadeCard {
  readonly id: string;
  readonly raw: RawCard;
  readonly key: PrivateKey;
  readonly snapshot: Snapshot;
}

let clock = 1_700_000_000;

export interface MakeCardOptions {
  readonly previousCardId?: string;
  readonly createdAt?: number;
  readonly key?: PrivateKey;
  /** Extra signers besides `self`. */
  readonly others?: readonly { signer: string; key?: PrivateKey; snapshot?: Uint8Array }[];
}

/** A valid, self-signed card (each call a fresh key and created_at, so a distinct id). */
export function makeCard(identity: string, options: MakeCardOptions = {}): MadeCard {
  const key = options.key ?? generatePrivateKey();
  const snapshot = buildSnapshot({
    identity,
    publicKey: key.publicKey.spki,
    createdAt: options.createdAt ?? clock++,
    ...(options.previousCardId !== undefined && { previousCardId: options.previousCardId }),
  });
  const raw = signCard(snapshot, {
    self: key,
    others: (options.others ?? []).map((o) => ({
      signer: o.signer,
      key: o.key ?? generatePrivateKey(),
      ...(o.snapshot && { snapshot: o.snapshot }),
    })),
  });
  return { id: cardIdOf(snapshot.bytes), raw, key, snapshot };
}

/** A revoking card (empty public key) naming `previousCardId`; signatures optional. */
export function makeRevocation(
  identity: string,
  previousCardId: string,
  options: { createdAt?: number; signatures?: RawSignature[] } = {},
): { id: string; raw: { content_snapshot: string; signatures?: RawSignature[] } } {
  const snapshot = buildSnapshot({
    identity,
    previousCardId,
    createdAt: options.createdAt ?? clock++,
  });
  return {
    id: cardIdOf(snapshot.bytes),
    raw: {
      content_snapshot: encodeBase64(snapshot.bytes),
      ...(options.signatures && { signatures: options.signatures }),
    },
  };
}

/** base64 of any JSON text (or of the JSON of a value), for snapshots the core would refuse. */
export const snapshotOf = (value: unknown): string =>
  encodeBase64(utf8(typeof value === 'string' ? value : JSON.stringify(value)));

/**
 * A card whose snapshot is `fields` as given (any keys, any values), self-signed with `key` over
 * those exact bytes: for every refusal after the signature list.
 */
export function cardFromFields(
  fields: Record<string, unknown>,
  key: PrivateKey = generatePrivateKey(),
): { id: string; raw: RawCard } {
  const bytes = utf8(JSON.stringify(fields));
  const signature = encodeBase64(signParts(key, bytes));
  return {
    id: cardIdOf(bytes),
    raw: { content_snapshot: encodeBase64(bytes), signatures: [{ signer: 'self', signature }] },
  };
}

/** Snapshot fields of a valid card for `identity` with `key`; override any of them. */
export const fieldsFor = (
  identity: string,
  key: PrivateKey,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> => ({
  identity,
  public_key: encodeBase64(key.publicKey.spki),
  version: '5.0',
  created_at: clock++,
  ...overrides,
});
