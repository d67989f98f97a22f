/**
 * The rows the admin API answers with (docs/http.md, "Routes"), snake_case like the rest of the
 * wire: declared once for the registry that builds them and the CLI that reads them. Types only.
 */
import type { RawSignature } from './card.js';
import type { CardState } from './chain.js';

/** A card as the admin API lists it (GET /_cards/cards). */
export interface CardRow {
  readonly seq: number;
  readonly id: string;
  readonly identity: string;
  readonly state: CardState;
  readonly previous_card_id: string | null;
  readonly successor: string | null;
  readonly revoked_by: string | null;
}

/** A page of GET /_cards/cards: its rows, and the cursor of the next page (null on the last). */
export interface CardsPage {
  readonly cards: CardRow[];
  readonly next_cursor: string | null;
}

/** An identity as the admin API lists it. */
export interface IdentityRow {
  readonly identity: string;
  readonly cards: number;
  readonly live_chains: number;
  readonly revoked_chains: number;
}

/** A card of an identity's history: its row, its creation time and the card itself. */
export interface HistoryCard extends CardRow {
  /** UNIX seconds, from the decoded snapshot; null when it cannot be read. */
  readonly created_at: number | null;
  readonly content_snapshot: string;
  readonly signatures: readonly RawSignature[];
}

/** Every chain of an identity, oldest first. */
export interface IdentityHistory {
  readonly identity: string;
  readonly chains: readonly { readonly revoked: boolean; readonly cards: HistoryCard[] }[];
}

/** One e3kit Keyknox blob or entry as the admin API lists it (GET /_cards/keyknox). */
export interface KeyknoxRow {
  /** Which Keyknox API keeps it. */
  readonly api: 'v1' | 'v2';
  readonly app: string;
  /** The blob's identity (v1), the entry's owner (v2). */
  readonly owner: string;
  /** null for a v1 blob. */
  readonly root: string | null;
  readonly path: string | null;
  readonly key: string | null;
  /** The identities an entry names as readers (none for a v1 blob). */
  readonly readers: readonly string[];
  /** Bytes of `meta` and `value` (v2: of the owner's copy). */
  readonly size: number;
  /** The wire version "n.0" of a v1 blob; null for a v2 entry, which has none. */
  readonly version: string | null;
  /** The wire hash a client holds (`Virgil-Keyknox-Hash`). */
  readonly hash: string;
  /** ISO 8601; null where the record has no such date (imported from a dump without them). */
  readonly created: string | null;
  readonly updated: string | null;
}

/** A page of GET /_cards/keyknox: its rows, and the cursor of the next page (null on the last). */
export interface KeyknoxPage {
  readonly keyknox: KeyknoxRow[];
  readonly next_cursor: string | null;
}
