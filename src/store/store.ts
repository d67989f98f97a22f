/**
 * The store interface the registry writes through, and the stored card record.
 *
 * A store keeps cards in insertion order and makes each append durable before it resolves. It
 * knows nothing of the rules (src/registry/registry.ts): it never decides that a card may be
 * stored, only that it was. The JSON-file store (json-store.ts) is the one engine today; a
 * PostgreSQL store will implement the same interface. An engine shared by several servers must
 * enforce the uniqueness of `id` and `previous_card_id` itself and reject a losing append with
 * the CardsError the registry would have raised (SNAPSHOT_NOT_UNIQUE, PREVIOUS_SUPERSEDED).
 */
import type { RawSignature } from '../core/card.js';

/**
 * A stored card: the wire object (content_snapshot exactly as received, the signatures including
 * the service's) plus fields derived from the snapshot when it was accepted, so that loading a
 * store builds its indexes without decoding a single snapshot.
 */
export interface StoredCard {
  /** Card id: lowercase hex, 64 characters (spec 2.4). */
  readonly id: string;
  readonly identity: string;
  /** Lowercase id of the card this one replaces or revokes. */
  readonly previous_card_id?: string;
  /** Set (true) on a revoking card: its public_key is empty (spec 2.2 rule 3). */
  readonly revoking?: true;
  readonly content_snapshot: string;
  readonly signatures: readonly RawSignature[];
  /**
   * The wire object's JSON text, when the store has it ready (cards loaded from a file keep
   * their line and slice it); otherwise the registry serialises content_snapshot and signatures.
   */
  readonly wireJson?: string;
}

export interface StoreStats {
  readonly cards: number;
  /** Appends acknowledged since open. */
  readonly appends: number;
  /** Durable writes (write + fdatasync) since open; fewer than appends under group commit. */
  readonly flushes: number;
  /** Compactions since open (start-up and close included). */
  readonly compactions: number;
}

export interface CardStore {
  /** Where the store lives, for messages ("/data/cards.json", "memory"). */
  readonly location: string;
  /** Every stored card, in insertion order, as opened. Read once by the registry. */
  load(): readonly StoredCard[];
  /**
   * Stores one card. Resolves only once the card is durable; rejects when it could not be
   * written (then nothing of it is stored, now or after a restart).
   */
  append(card: StoredCard): Promise<void>;
  stats(): StoreStats;
  /** Finishes pending appends, folds everything into the main file, releases the store. */
  close(): Promise<void>;
}

/** The wire object of a stored card (spec 2.1), without the derived fields. */
export const wireCard = (
  card: StoredCard,
): { content_snapshot: string; signatures: readonly RawSignature[] } => ({
  content_snapshot: card.content_snapshot,
  signatures: card.signatures,
});
