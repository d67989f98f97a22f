/**
 * The store contract: what the registry asks of a storage engine, and the stored card record.
 *
 * A store answers the registry's queries itself (a card by id with its place in its chain, the
 * chains of some identities, the last card of a chain) and inserts atomically: `insert` stores a
 * card only if its id is free, the card it names as previous has no successor yet and its chain
 * is not revoked, and rejects a loser with the CardsError the registry would have raised
 * (SNAPSHOT_NOT_UNIQUE 40027, PREVIOUS_SUPERSEDED 40037, CHAIN_REVOKED 40310; the rules are
 * src/core/chain.ts). So several servers can share one engine (PostgreSQL) and racing requests
 * have exactly one winner whichever server they reach. A store never checks signatures,
 * identities or snapshots: the registry does, before it inserts.
 *
 * Each engine (engine.ts) holds one: memory and JSON file keep the indexes of card-index.ts;
 * PostgreSQL is shared by several servers. Every one passes the contract suite in test/store/.
 */
import type { RawSignature } from '../core/card.js';
import type { CardState, ChainPlace } from '../core/chain.js';

/**
 * A stored card: the wire object (content_snapshot exactly as received, the signatures including
 * the service's) plus fields derived from the snapshot when it was accepted, so that opening a
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
   * their line and slice it); otherwise it is serialised from content_snapshot and signatures.
   */
  readonly wireJson?: string;
}

/** A stored card with what the store knows of it: its position and its place in its chain. */
export interface CardEntry extends ChainPlace {
  readonly id: string;
  readonly card: StoredCard;
  /** Position in insertion order, from 0: the same on every server sharing the store. */
  readonly seq: number;
  readonly state: CardState;
  /** Spec 4.2: another card names this one as previous_card_id (the superseded header). */
  readonly superseded: boolean;
  /** The wire object (spec 2.1) as JSON text. */
  readonly json: string;
}

/** One chain of an identity: its cards in order, oldest first. */
export interface CardChain {
  readonly identity: string;
  readonly cards: readonly CardEntry[];
  /** The chain ends in a revoking card (spec 2.2 rule 3). */
  readonly revoked: boolean;
}

export interface StoreStats {
  readonly cards: number;
  /** Inserts acknowledged since open. */
  readonly appends: number;
  /** Durable writes since open; fewer than appends under group commit. */
  readonly flushes: number;
  /** Compactions since open (start-up and close included). */
  readonly compactions: number;
}

/** One identity as the admin API lists it: its cards and chains, counted. */
export interface IdentitySummary {
  readonly identity: string;
  /** Cards of every chain, revoking cards included. */
  readonly cards: number;
  /** Chains whose last card is not a revoking card. */
  readonly liveChains: number;
  /** Chains ending in a revoking card. */
  readonly revokedChains: number;
}

/** Cards by the start of their id (the CLI's short card ids, as in git). */
export interface IdPrefixQuery {
  /** Lowercase hex digits, 1 to 64. */
  readonly prefix: string;
  /** Cursor: only ids sorting strictly after this one. */
  readonly after?: string;
  /** At most this many (the caller bounds it). */
  readonly limit: number;
}

export interface IdentityQuery {
  /** Only identities starting with this (case-sensitive). */
  readonly prefix?: string;
  /** Cursor: only identities sorting strictly after this one. */
  readonly after?: string;
  /** At most this many (the caller bounds it). */
  readonly limit: number;
}

export interface CardStore {
  /** Where the store lives, for messages ("/data/cards.json", "memory"). */
  readonly location: string;
  /** The card with this id (lowercase hex), or undefined. Only durable cards are found. */
  getCard(id: string): Promise<CardEntry | undefined>;
  /** The last card of the chain holding the card with this id, or undefined. */
  lastOfChain(id: string): Promise<CardEntry | undefined>;
  /**
   * The chains of each identity asked, revoked ones included: identities in the order asked
   * (each once), each identity's chains in the order their first card was stored.
   */
  chainsOf(identities: readonly string[]): Promise<CardChain[]>;
  /**
   * A number that changes whenever what chainsOf answers for this identity changes (a card added
   * to one of its chains, a reset), undefined while it has no card; a number once given is never
   * given again in this process, so an answer derived from chainsOf and kept under the revision
   * read before asking is current exactly while the revision is the same. Only an engine that
   * sees every write has it (memory, JSON file); one shared by several servers (PostgreSQL) has
   * none, and its callers ask chainsOf every time.
   */
  revisionOf?(identity: string): number | undefined;
  /**
   * Stores one card atomically (see above) and resolves with its entry, sequence number
   * included, once it is durable. Rejects a conflict with its CardsError; any other failure
   * leaves nothing of the card stored, now or after a restart.
   */
  insert(card: StoredCard): Promise<CardEntry>;
  /**
   * Up to `limit` durable cards in insertion order, from sequence number `fromSeq` on: export
   * (`cards export`) pages through a store with it, never holding the whole store.
   */
  scan(fromSeq: number, limit: number): Promise<StoredCard[]>;
  /** Number of durable cards. */
  count(): Promise<number>;
  /**
   * Durable cards in insertion order, from the one after sequence number `afterSeq` (from the
   * first when undefined), at most `limit`. The cursor is the last seq returned: it stays valid
   * while cards are added, since a card's seq never changes. Cost: the page, not the store.
   */
  listCards(afterSeq: number | undefined, limit: number): Promise<CardEntry[]>;
  /**
   * Identities in ascending code-point order (core/encoding.ts `compareText`, a SQL engine's
   * binary collation), with their counts; the cursor is the last identity returned.
   */
  listIdentities(query: IdentityQuery): Promise<IdentitySummary[]>;
  /** Durable cards whose id starts with the prefix, in id order; the cursor is the last id. */
  cardsWithIdPrefix(query: IdPrefixQuery): Promise<CardEntry[]>;
  /**
   * Empties the registry (admin reset): afterwards count() is 0 and sequence numbers start
   * again from 0. Inserts arriving meanwhile wait for it and land in the empty registry.
   */
  reset(): Promise<void>;
  stats(): StoreStats;
  /** Finishes pending inserts and releases the store. */
  close(): Promise<void>;
}

/** The wire object of a stored card (spec 2.1), without the derived fields. */
const wireCard = (
  card: StoredCard,
): { content_snapshot: string; signatures: readonly RawSignature[] } => ({
  content_snapshot: card.content_snapshot,
  signatures: card.signatures,
});

/** The wire object's JSON text. */
export const wireJsonOf = (card: StoredCard): string =>
  card.wireJson ?? JSON.stringify(wireCard(card));
