/**
 * The service's rules (spec section 3, wire-facts section 4): create, get, search and revoke,
 * over a CardStore. Knows nothing of HTTP or of the storage engine.
 *
 * Concurrency: every rule is checked synchronously against the in-memory indexes, then the
 * card's id and previous id are reserved before the durable append is awaited, so racing
 * requests get 40027 / 40037 / 40310 deterministically (exactly one winner). A card becomes
 * visible to get and search only once the store has acknowledged it; when the write fails the
 * reservation is released and the caller gets STORE_UNAVAILABLE: nothing visible, nothing after
 * a restart.
 */
import { parseRawCard, parseSignatures, type RawSignature } from '../core/card.js';
import { cardIdOf } from '../core/card-id.js';
import { encodeBase64 } from '../core/encoding.js';
import { CardsError, isCardsError } from '../core/errors.js';
import { CARD_ID_PATTERN, SELF_SIGNER } from '../core/limits.js';
import { buildSnapshot, type Snapshot } from '../core/snapshot.js';
import type { PrivateKey } from '../crypto/keys.js';
import { signEntry } from '../crypto/sign-card.js';
import type { CardStore, StoredCard } from '../store/store.js';
import { CardIndex, type IndexedCard } from './card-index.js';
import { decodeSnapshotFor, parseSearchQuery } from './requests.js';
import { checkSelfSignature } from './self-signature.js';

export type { IndexedCard } from './card-index.js';

export interface RegistryOptions {
  /** An opened store; its cards are indexed once, here. */
  readonly store: CardStore;
  /** Signs every stored card (wire-facts section 1: over the snapshot alone). */
  readonly serviceKey: PrivateKey;
  /** The service's signer name (profile): added to every stored card, refused from clients. */
  readonly signer: string;
  /** Milliseconds since the epoch: created_at of the revoking cards the service builds. */
  readonly clock?: () => number;
}

/** A card waiting for its durable write: it holds its id and its previous card's successor slot. */
interface Pending {
  readonly id: string;
  readonly revoking: boolean;
}

export class Registry {
  readonly #store: CardStore;
  readonly #serviceKey: PrivateKey;
  readonly #signer: string;
  readonly #clock: () => number;
  readonly #index = new CardIndex();
  readonly #pendingIds = new Set<string>();
  /** Reserved successors, by the previous card id they name. */
  readonly #pendingSuccessors = new Map<string, Pending>();

  constructor(options: RegistryOptions) {
    this.#store = options.store;
    this.#serviceKey = options.serviceKey;
    this.#signer = options.signer;
    this.#clock = options.clock ?? Date.now;
    this.#index.load(options.store.load(), options.store.location);
  }

  /** Number of stored (durable) cards. */
  get size(): number {
    return this.#index.size;
  }

  /** Spec 4.1: a new card or a replacement (previous_card_id set). `caller`: the token's identity. */
  async createCard(body: unknown, caller: string): Promise<IndexedCard> {
    const raw = parseRawCard(body);
    const snapshot = decodeSnapshotFor(raw.content_snapshot, 'card', caller);
    const signatures = parseSignatures(raw.signatures, {
      reservedSigner: this.#signer,
      requireSelf: true,
    });
    const self = signatures.find((entry) => entry.signer === SELF_SIGNER);
    if (self) checkSelfSignature(snapshot, self); // parseSignatures guarantees one
    const id = cardIdOf(snapshot.bytes);
    this.#checkChain(snapshot, id, 'card');
    return this.#commit(
      snapshot,
      id,
      signatures.map((entry) => entry.raw),
      raw.content_snapshot,
    );
  }

  /** Spec 4.4: revoke with a revoking card (empty public key, previous_card_id required). */
  async revokeCard(body: unknown, caller: string): Promise<IndexedCard> {
    const raw = parseRawCard(body);
    const snapshot = decodeSnapshotFor(raw.content_snapshot, 'revocation', caller);
    // Spec 4.4: signatures are optional and, when present, not verified.
    const signatures = parseSignatures(raw.signatures, {
      reservedSigner: this.#signer,
      requireSelf: false,
    });
    const id = cardIdOf(snapshot.bytes);
    this.#checkChain(snapshot, id, 'revocation');
    return this.#commit(
      snapshot,
      id,
      signatures.map((entry) => entry.raw),
      raw.content_snapshot,
    );
  }

  /**
   * Spec 4.5: the service builds and signs the empty-key revoking card itself. The body must be
   * empty (undefined) or `{}`, which the stock client sends (wire-facts section 2).
   */
  async revokeCardById(cardId: string, caller: string, body?: unknown): Promise<IndexedCard> {
    if (body !== undefined && !isEmptyObject(body))
      throw new CardsError('BODY_PARSE', 'Revoke by id takes an empty body or {}.');
    const target = this.getCard(cardId);
    if (target.card.identity !== caller)
      throw new CardsError(
        'IDENTITY_MISMATCH',
        "Identity is incorrect. It must match request identity provided in JWT (the card's identity is not the token's).",
      );
    this.#checkTarget(target, 'revocation');
    const snapshot = buildSnapshot({
      identity: target.card.identity,
      previousCardId: target.id,
      createdAt: Math.max(1, Math.floor(this.#clock() / 1000)),
    });
    const id = cardIdOf(snapshot.bytes);
    if (this.#index.get(id) || this.#pendingIds.has(id))
      throw new CardsError('SNAPSHOT_NOT_UNIQUE');
    return this.#commit(snapshot, id, [], encodeBase64(snapshot.bytes));
  }

  /** Spec 4.2: 30002 for an id that is not 64 hex characters, 10001 for an unknown one. */
  getCard(cardId: string): IndexedCard {
    if (!CARD_ID_PATTERN.test(cardId))
      throw new CardsError(
        'CARD_ID_INVALID',
        `Card ID is not a valid ID: expected 64 hexadecimal characters, got ${cardId.length} characters.`,
      );
    const entry = this.#index.get(cardId.toLowerCase());
    if (!entry) throw new CardsError('CARD_NOT_FOUND');
    return entry;
  }

  /**
   * Spec 4.3: every card of each live chain of the identities asked, superseded ones included;
   * identities in the order asked, each identity's chains oldest first, each chain in order;
   * revoked chains left out whole.
   */
  searchCards(query: unknown): IndexedCard[] {
    const found: IndexedCard[] = [];
    for (const identity of parseSearchQuery(query)) {
      for (const chain of this.#index.chainsOf(identity)) {
        if (!chain.revoked) found.push(...chain.cards);
      }
    }
    return found;
  }

  /** The store's counters plus the registry's view. */
  stats(): { cards: number; pending: number } {
    return { cards: this.#index.size, pending: this.#pendingIds.size };
  }

  /** Closes the store (pending writes finish first). */
  close(): Promise<void> {
    return this.#store.close();
  }

  /**
   * The previous-card rules in the deployed service's order: already superseded (40037, or
   * 40310 when the chain is revoked) → exists (40015) → same identity (40032) → duplicate id
   * (40027) → chain revoked (40310, when the named card is the revoking card itself).
   */
  #checkChain(snapshot: Snapshot, id: string, purpose: 'card' | 'revocation'): void {
    const previousId = snapshot.previousCardId;
    let previous: IndexedCard | undefined;
    if (previousId !== undefined) {
      previous = this.#index.get(previousId);
      // Only durable cards can be named: a card still being written does not exist yet.
      if (previous) this.#checkTarget(previous, purpose);
      if (!previous)
        throw new CardsError(
          'PREVIOUS_NOT_FOUND',
          `Previous Card ID ${previousId} does not exist.`,
        );
      if (previous.card.identity !== snapshot.identity)
        throw new CardsError('PREVIOUS_IDENTITY_MISMATCH');
    }
    if (this.#index.get(id) || this.#pendingIds.has(id))
      throw new CardsError(
        'SNAPSHOT_NOT_UNIQUE',
        `Card content snapshot is not unique: card ${id} exists.`,
      );
    if (previous?.card.revoking) throw new CardsError('CHAIN_REVOKED');
  }

  /**
   * The named card must be the last of its chain. Replacing a card whose successor revokes
   * the chain is 40310 (the chain is deleted), any other superseded card 40037; a revocation
   * of any card of a revoked chain is 40310. Reserved (pending) successors count.
   */
  #checkTarget(target: IndexedCard, purpose: 'card' | 'revocation'): void {
    const last = target.chain.last;
    const pendingAfterLast = this.#pendingSuccessors.get(last.id);
    const chainRevoked = last.card.revoking === true || pendingAfterLast?.revoking === true;
    if (purpose === 'revocation' && chainRevoked) throw new CardsError('CHAIN_REVOKED');
    const successor = target.successor ?? this.#pendingSuccessors.get(target.id);
    if (successor === undefined) return;
    const successorRevokes =
      'card' in successor ? successor.card.revoking === true : successor.revoking;
    if (successorRevokes) throw new CardsError('CHAIN_REVOKED');
    const lastId = pendingAfterLast?.id ?? last.id;
    throw new CardsError(
      'PREVIOUS_SUPERSEDED',
      `Previous Card exists already: card ${target.id} is superseded; the last card of its chain is ${lastId}.`,
    );
  }

  /** Signs, reserves, awaits the durable append, then makes the card visible. */
  async #commit(
    snapshot: Snapshot,
    id: string,
    signatures: readonly RawSignature[],
    contentSnapshot: string,
  ): Promise<IndexedCard> {
    const service = signEntry(snapshot, { signer: this.#signer, key: this.#serviceKey });
    const revoking = snapshot.publicKey.byteLength === 0;
    const previousId = snapshot.previousCardId;
    const card: StoredCard = {
      id,
      identity: snapshot.identity,
      ...(previousId !== undefined && { previous_card_id: previousId }),
      ...(revoking && { revoking: true as const }),
      content_snapshot: contentSnapshot,
      signatures: [...signatures, service],
    };
    this.#pendingIds.add(id);
    if (previousId !== undefined) this.#pendingSuccessors.set(previousId, { id, revoking });
    let failure: unknown;
    try {
      await this.#store.append(card);
    } catch (err) {
      failure = err;
    }
    this.#pendingIds.delete(id);
    if (previousId !== undefined) this.#pendingSuccessors.delete(previousId);
    if (failure !== undefined)
      throw isCardsError(failure)
        ? failure
        : new CardsError('STORE_UNAVAILABLE', undefined, { cause: failure });
    return this.#index.add(card);
  }
}

const isEmptyObject = (value: unknown): boolean =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  Object.keys(value).length === 0;

export const createRegistry = (options: RegistryOptions): Registry => new Registry(options);
