/**
 * The service's rules (spec section 3, docs/errors.md): create, get, search and revoke,
 * over a CardStore. Knows nothing of HTTP or of the storage engine.
 *
 * Every rule is checked in the deployed service's order against what the store answers; the
 * store's atomic insert then re-checks the chain rules (src/core/chain.ts) against cards still
 * being written, so of racing requests, on one server or several sharing a store, exactly one
 * wins and the others get 40027 / 40037 / 40310. A card is visible to get and search only once
 * the store has acknowledged it; a write that fails is STORE_UNAVAILABLE and leaves nothing.
 */
import { parseRawCard, parseSignatures, type RawSignature } from '../core/card.js';
import { cardIdOf } from '../core/card-id.js';
import {
  previousConflict,
  previousNotFound,
  previousSuperseded,
  snapshotNotUnique,
} from '../core/chain.js';
import { encodeBase64 } from '../core/encoding.js';
import { CardsError, isCardsError } from '../core/errors.js';
import { isObject } from '../core/json.js';
import { CARD_ID_PATTERN, SELF_SIGNER } from '../core/limits.js';
import { buildSnapshot, decodeSnapshot, type Snapshot } from '../core/snapshot.js';
import type { PrivateKey } from '../crypto/keys.js';
import { signEntry } from '../crypto/sign-card.js';
import type { CardEntry, CardStore, StoredCard } from '../store/store.js';
import { parseSearchQuery } from './requests.js';
import { checkSelfSignature } from './self-signature.js';

export type { CardEntry, CardStore } from '../store/store.js';

export interface RegistryOptions {
  /** An opened store. */
  readonly store: CardStore;
  /** Signs every stored card (docs/http.md "Cryptography": over the snapshot alone). */
  readonly serviceKey: PrivateKey;
  /** The service's signer name (profile): added to every stored card, refused from clients. */
  readonly signer: string;
  /** Milliseconds since the epoch: created_at of the revoking cards the service builds. */
  readonly clock?: () => number;
  /** Told of every acknowledged card (the transparency log integrates it, card-log.ts). */
  readonly onInsert?: (entry: CardEntry) => void;
}

export class Registry {
  readonly #store: CardStore;
  readonly #serviceKey: PrivateKey;
  readonly #signer: string;
  readonly #clock: () => number;
  #writeObserver: ((ms: number) => void) | undefined;
  readonly #onInsert: ((entry: CardEntry) => void) | undefined;

  constructor(options: RegistryOptions) {
    this.#store = options.store;
    this.#serviceKey = options.serviceKey;
    this.#signer = options.signer;
    this.#clock = options.clock ?? Date.now;
    this.#onInsert = options.onInsert;
  }

  get store(): CardStore {
    return this.#store;
  }

  /** Told how long each store insert took, in ms (the admin API's metrics). */
  observeWrites(observer: (ms: number) => void): void {
    this.#writeObserver = observer;
  }

  /** Number of stored (durable) cards. */
  count(): Promise<number> {
    return this.#store.count();
  }

  /**
   * Spec 4.1: a new card or a replacement (previous_card_id set). `caller`: the token's identity.
   */
  createCard(body: unknown, caller: string): Promise<CardEntry> {
    return this.#storeSent(body, 'card', caller);
  }

  /** Spec 4.4: revoke with a revoking card (empty public key, previous_card_id required). */
  revokeCard(body: unknown, caller: string): Promise<CardEntry> {
    return this.#storeSent(body, 'revocation', caller);
  }

  /** A card or a revoking card as a client sent it: checked, signed and stored. */
  async #storeSent(
    body: unknown,
    purpose: 'card' | 'revocation',
    caller: string,
  ): Promise<CardEntry> {
    const raw = parseRawCard(body);
    // A snapshot of another identity than the token's is 40034, at the deployed service's place
    // in the order of checks.
    const snapshot = decodeSnapshot(raw.content_snapshot, purpose, { expectedIdentity: caller });
    // Spec 4.4: a revoking card's signatures are optional and, when present, not verified.
    const signatures = parseSignatures(raw.signatures, {
      reservedSigner: this.#signer,
      requireSelf: purpose === 'card',
    });
    if (purpose === 'card') {
      const self = signatures.find((entry) => entry.signer === SELF_SIGNER);
      // parseSignatures guarantees `self`. Only a Falcon-hybrid key is checked asynchronously
      // (its verifier loads lazily); every other type keeps the synchronous arrival-order path.
      const checking = self && checkSelfSignature(snapshot, self);
      if (checking) await checking;
    }
    const id = cardIdOf(snapshot.bytes);
    await this.#checkChain(snapshot, id);
    return this.#insert(
      snapshot,
      id,
      signatures.map((entry) => entry.raw),
      raw.content_snapshot,
    );
  }

  /**
   * Spec 4.5: the service builds and signs the empty-key revoking card itself. The body must be
   * empty (undefined) or `{}`, which the stock client sends (docs/http.md "Routes").
   */
  async revokeCardById(cardId: string, caller: string, body?: unknown): Promise<CardEntry> {
    if (body !== undefined && !isEmptyObject(body))
      throw new CardsError('BODY_PARSE', 'Revoke by id takes an empty body or {}.');
    const target = await this.getCard(cardId);
    if (target.card.identity !== caller)
      throw new CardsError(
        'IDENTITY_MISMATCH',
        "Identity is incorrect. It must match request identity provided in JWT (the card's identity is not the token's).",
      );
    await this.#checkTarget(target, true);
    const snapshot = buildSnapshot({
      identity: target.card.identity,
      previousCardId: target.id,
      createdAt: Math.max(1, Math.floor(this.#clock() / 1000)),
    });
    const id = cardIdOf(snapshot.bytes);
    if (await this.#store.getCard(id)) {
      // A twin request won since the target was read: answer as one arriving after it would.
      await this.#checkTarget(await this.getCard(cardId), true);
      throw new CardsError('SNAPSHOT_NOT_UNIQUE');
    }
    return this.#insert(snapshot, id, [], encodeBase64(snapshot.bytes));
  }

  /** Spec 4.2: 30002 for an id that is not 64 hex characters, 10001 for an unknown one. */
  async getCard(cardId: string): Promise<CardEntry> {
    if (!CARD_ID_PATTERN.test(cardId))
      throw new CardsError(
        'CARD_ID_INVALID',
        `Card ID is not a valid ID: expected 64 hexadecimal characters, got ${cardId.length} characters.`,
      );
    const entry = await this.#store.getCard(cardId.toLowerCase());
    if (!entry) throw new CardsError('CARD_NOT_FOUND');
    return entry;
  }

  /**
   * Spec 4.3: every card of each live chain of the identities asked, superseded ones included;
   * identities in the order asked, each identity's chains oldest first, each chain in order;
   * revoked chains left out whole.
   */
  async searchCards(query: unknown): Promise<CardEntry[]> {
    const chains = await this.#store.chainsOf(parseSearchQuery(query));
    return chains.filter((chain) => !chain.revoked).flatMap((chain) => chain.cards);
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
  async #checkChain(snapshot: Snapshot, id: string): Promise<void> {
    const previousId = snapshot.previousCardId;
    const revoking = snapshot.publicKey.byteLength === 0;
    let previous: CardEntry | undefined;
    if (previousId !== undefined) {
      previous = await this.#store.getCard(previousId);
      if (!previous) throw previousNotFound(previousId);
      await this.#checkTarget(previous, revoking);
      if (previous.card.identity !== snapshot.identity)
        throw new CardsError('PREVIOUS_IDENTITY_MISMATCH');
    }
    if (await this.#store.getCard(id)) {
      // The same card, stored since `previous` was read (a racing twin, perhaps on another
      // server sharing the store): answer as a request arriving after it would (40037 / 40310).
      const now = previousId === undefined ? undefined : await this.#store.getCard(previousId);
      if (now) await this.#checkTarget(now, revoking);
      throw snapshotNotUnique(id);
    }
    if (previous?.revoking) throw new CardsError('CHAIN_REVOKED');
  }

  /** The named card must be the last of its live chain (src/core/chain.ts). */
  async #checkTarget(target: CardEntry, revoking: boolean): Promise<void> {
    const conflict = previousConflict(target, revoking);
    if (conflict === undefined) return;
    if (conflict === 'CHAIN_REVOKED') throw new CardsError(conflict);
    const last = await this.#store.lastOfChain(target.id);
    throw previousSuperseded(target.id, last?.id ?? target.successor);
  }

  /** Signs the card and inserts it; the store re-checks the chain rules atomically. */
  async #insert(
    snapshot: Snapshot,
    id: string,
    signatures: readonly RawSignature[],
    contentSnapshot: string,
  ): Promise<CardEntry> {
    const service = signEntry(snapshot, { signer: this.#signer, key: this.#serviceKey });
    const previousId = snapshot.previousCardId;
    const card: StoredCard = {
      id,
      identity: snapshot.identity,
      ...(previousId !== undefined && { previous_card_id: previousId }),
      ...(snapshot.publicKey.byteLength === 0 && { revoking: true as const }),
      content_snapshot: contentSnapshot,
      signatures: [...signatures, service],
    };
    const started = performance.now();
    try {
      const entry = await this.#store.insert(card);
      this.#onInsert?.(entry);
      return entry;
    } catch (err) {
      throw isCardsError(err)
        ? err
        : new CardsError('STORE_UNAVAILABLE', undefined, { cause: err });
    } finally {
      this.#writeObserver?.(performance.now() - started);
    }
  }
}

const isEmptyObject = (value: unknown): boolean =>
  isObject(value) && Object.keys(value).length === 0;

export const createRegistry = (options: RegistryOptions): Registry => new Registry(options);
