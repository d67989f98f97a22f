/**
 * Rows of the PostgreSQL store → the contract's entries and chains (../store.ts). The stored card
 * is rebuilt as the exact line the JSON store writes (../record.ts serializeCard), so an export is
 * byte-identical whichever engine it comes from, and the wire object is the stored text.
 */
import { cardState, type CardState } from '../../core/chain.js';
import type { CardChain, CardEntry, StoredCard } from '../store.js';
import { parseStoredLine } from '../stored-line.js';

export interface CardRow {
  readonly id: string;
  readonly seq: string | number;
  readonly identity: string;
  readonly previous_card_id: string | null;
  readonly revoking: boolean;
  readonly chain_id: string;
  readonly wire: string;
  readonly successor?: string | null;
  readonly revoked_by?: string | null;
}

/** serializeCard's line for a row: id, identity, previous, revoking, then the wire object. */
function recordLine(row: CardRow): string {
  const previous =
    row.previous_card_id === null ? '' : `,"previous_card_id":"${row.previous_card_id}"`;
  return (
    `{"id":"${row.id}","identity":${JSON.stringify(row.identity)}${previous}` +
    `${row.revoking ? ',"revoking":true' : ''},${row.wire.slice(1)}`
  );
}

export function storedCardOf(row: CardRow): StoredCard {
  const line = recordLine(row);
  return parseStoredLine(line) ?? { ...(JSON.parse(line) as StoredCard), wireJson: row.wire };
}

export class RowEntry implements CardEntry {
  readonly id: string;
  readonly seq: number;
  readonly revoking: boolean;
  readonly successor: string | undefined;
  readonly revokedBy: string | undefined;
  readonly json: string;
  readonly #row: CardRow;
  #card: StoredCard | undefined;

  /** `card`: the card as inserted (the engines hand back the object they were given). */
  constructor(
    row: CardRow,
    successor: string | undefined,
    revokedBy: string | undefined,
    card?: StoredCard,
  ) {
    this.id = row.id;
    this.#row = row;
    this.#card = card;
    this.seq = Number(row.seq);
    this.revoking = row.revoking;
    this.successor = successor;
    this.revokedBy = revokedBy;
    this.json = row.wire;
  }

  /** Rebuilt from the row on first use: a get or a search answers with `json` alone. */
  get card(): StoredCard {
    return (this.#card ??= storedCardOf(this.#row));
  }

  get state(): CardState {
    return cardState(this);
  }

  get superseded(): boolean {
    return this.successor !== undefined;
  }
}

/** A row read with its successor and revoking card (GET_CARD, LAST_OF_CHAIN). */
export const entryOf = (row: CardRow): RowEntry =>
  new RowEntry(row, row.successor ?? undefined, row.revoked_by ?? undefined);

/**
 * The rows of CHAINS_OF (chains by their first card, each in order) → chains, identities in
 * the order asked, each once.
 */
export function chainsOfRows(rows: readonly CardRow[], identities: readonly string[]): CardChain[] {
  const byChain = new Map<string, CardRow[]>();
  for (const row of rows) {
    const chain = byChain.get(row.chain_id);
    if (chain) chain.push(row);
    else byChain.set(row.chain_id, [row]);
  }
  const byIdentity = new Map<string, CardChain[]>();
  for (const chainRows of byChain.values()) {
    const last = chainRows[chainRows.length - 1] as CardRow;
    const revokedBy = last.revoking ? last.id : undefined;
    const cards = chainRows.map(
      (row, i) => new RowEntry(row, chainRows[i + 1]?.id, revokedBy) as CardEntry,
    );
    const chain: CardChain = { identity: last.identity, cards, revoked: last.revoking };
    const list = byIdentity.get(last.identity);
    if (list) list.push(chain);
    else byIdentity.set(last.identity, [chain]);
  }
  return [...new Set(identities)].flatMap((identity) => byIdentity.get(identity) ?? []);
}
