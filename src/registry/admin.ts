/**
 * The admin API's queries and actions over the store contract: pages of cards, identities and
 * Keyknox entries (bounded in rows and in bytes: admin-page.ts), an identity's history with
 * dates, export and import as NDJSON (one stored card record per line, exactly as record.ts
 * `serializeCard` writes it: the format of `cards export`), and reset. Knows nothing of HTTP.
 * Every query costs its page, never the store.
 */
import { LRUCache } from 'lru-cache';
import type { CardRow, IdentityHistory, IdentityRow, KeyknoxRow } from '../core/admin-rows.js';
import { isPortableText } from '../core/encoding.js';
import { CardsError, isCardsError, reworded } from '../core/errors.js';
import type { KeyknoxStore } from '../store/keyknox.js';
import { pageOf, type Page } from './admin-page.js';
import { listKeyknox } from './keyknox-listing.js';
import { checkedDump, insertLines, toLines, type ImportResult } from './import-lines.js';
import type { CardEntry, CardStore } from '../store/store.js';
import type { CardLog } from './card-log.js';
import { dumpText } from './transfer.js';

/**
 * Bytes of history JSON kept (about 9,000 identities of two cards, 1.8 KB each): an identity's
 * history costs, made anew, about as much again as the whole request for it.
 */
const HISTORY_CACHE_BYTES = 16 * 1024 * 1024;

const cardRow = (entry: CardEntry): CardRow => ({
  seq: entry.seq,
  id: entry.id,
  identity: entry.card.identity,
  state: entry.state,
  previous_card_id: entry.card.previous_card_id ?? null,
  successor: entry.successor ?? null,
  revoked_by: entry.revokedBy ?? null,
});

/**
 * created_at of a stored snapshot (validated when the card was accepted): read without the
 * full validation, which costs more than the rest of a history request.
 */
function createdAt(contentSnapshot: string): number | null {
  try {
    const value: unknown = (
      JSON.parse(Buffer.from(contentSnapshot, 'base64').toString('utf8')) as {
        created_at?: unknown;
      }
    ).created_at;
    return Number.isSafeInteger(value) ? (value as number) : null;
  } catch {
    return null;
  }
}

export class Admin {
  readonly #store: CardStore;
  readonly #log: CardLog | undefined;
  readonly #keyknox: KeyknoxStore | undefined;
  /**
   * History JSON by identity, UTF-8 encoded once (an answer is then sent as it is), each with
   * the store's revision it was made from.
   */
  readonly #histories = new LRUCache<string, { revision: number; json: Buffer }>({
    maxSize: HISTORY_CACHE_BYTES,
    maxEntrySize: HISTORY_CACHE_BYTES / 4,
    sizeCalculation: (kept) => Math.max(1, kept.json.byteLength),
  });

  /**
   * `log`: the registry's transparency log, begun anew on reset (never rewound); `keyknox`:
   * e3kit's Keyknox entries, emptied with the cards on reset.
   */
  constructor(store: CardStore, log?: CardLog, keyknox?: KeyknoxStore) {
    this.#store = store;
    this.#log = log;
    this.#keyknox = keyknox;
  }

  /** Cards in insertion order; the cursor is the last seq. */
  async cards(cursor: number | undefined, limit: number): Promise<Page<CardRow>> {
    const entries = await this.#store.listCards(cursor, limit);
    return pageOf(entries.map(cardRow), limit, (row) => String(row.seq));
  }

  /** Cards whose id starts with `prefix` (lowercase hex), in id order; the cursor is an id. */
  async cardsWithIdPrefix(
    prefix: string,
    after: string | undefined,
    limit: number,
  ): Promise<Page<CardRow>> {
    const entries = await this.#store.cardsWithIdPrefix({
      prefix,
      limit,
      ...(after !== undefined && { after }),
    });
    return pageOf(entries.map(cardRow), limit, (row) => row.id);
  }

  async identities(query: {
    prefix?: string;
    after?: string;
    limit: number;
  }): Promise<Page<IdentityRow>> {
    // No identity holds such text (docs/http.md, "Text"); an engine would misread it.
    for (const [name, value] of [
      ['prefix', query.prefix],
      ['cursor', query.after],
    ] as const)
      if (value !== undefined && !isPortableText(value))
        throw new CardsError(
          'QUERY_INVALID',
          `Query parameter ${name} must be well-formed Unicode without U+0000.`,
        );
    const rows = (await this.#store.listIdentities(query)).map((item): IdentityRow => ({
      identity: item.identity,
      cards: item.cards,
      live_chains: item.liveChains,
      revoked_chains: item.revokedChains,
    }));
    return pageOf(rows, query.limit, (row) => row.identity);
  }

  /**
   * e3kit's Keyknox blobs, then entries, metadata only (keyknox-listing.ts); none on a registry
   * without them.
   */
  keyknox(cursor: string | undefined, limit: number): Promise<Page<KeyknoxRow>> {
    return listKeyknox(this.#keyknox, cursor, limit);
  }

  async history(identity: string): Promise<IdentityHistory> {
    // An identity no card can have (docs/http.md, "Text"): never handed to an engine.
    const chains = isPortableText(identity) ? await this.#store.chainsOf([identity]) : [];
    if (chains.length === 0)
      throw new CardsError('IDENTITY_NOT_FOUND', `No card has the identity "${identity}".`);
    return {
      identity,
      chains: chains.map((chain) => ({
        revoked: chain.revoked,
        cards: chain.cards.map((entry) => ({
          ...cardRow(entry),
          created_at: createdAt(entry.card.content_snapshot),
          content_snapshot: entry.card.content_snapshot,
          signatures: entry.card.signatures,
        })),
      })),
    };
  }

  /**
   * history() as UTF-8 JSON. Kept under the store's revision of the identity when the store has
   * one (store.ts `revisionOf`), read before the chains: a kept one is served only while the
   * revision is unchanged, so never after a create, replace, revoke, import or reset touched the
   * identity. A store without revisions (PostgreSQL, written by other servers too) is asked
   * every time.
   */
  async historyJson(identity: string): Promise<Buffer> {
    const kept = this.keptHistoryJson(identity);
    if (kept !== undefined) return kept;
    const revision = this.#store.revisionOf?.(identity);
    const json = Buffer.from(JSON.stringify(await this.history(identity)));
    if (revision !== undefined) this.#histories.set(identity, { revision, json });
    return json;
  }

  /**
   * historyJson's kept answer while it is current, else undefined: no store read and no promise
   * (the HTTP route sends it before its handler returns).
   */
  keptHistoryJson(identity: string): Buffer | undefined {
    const revision = this.#store.revisionOf?.(identity);
    if (revision === undefined) return undefined;
    const kept = this.#histories.get(identity);
    return kept?.revision === revision ? kept.json : undefined;
  }

  /** The registry's dump (transfer.ts `dumpText`): Keyknox entries, then every card. */
  export(): AsyncGenerator<string> {
    return dumpText(this.#store, this.#keyknox);
  }

  /**
   * Stores the records of an export, in order. Each line is checked as every import checks it
   * (its shape, then card-defect.ts: id, identity, previous card, self signature) and inserted
   * through the store's atomic insert, so the chain rules hold; a refused line stops the
   * import with its line number and how many cards it stored (they stay; an import with
   * `append` skips the cards stored already, identically, so a rerun completes it). Refused on a non-empty registry
   * unless `append`. Keyknox lines are checked as read and stored together before the first
   * card (and those after the cards at the end): keyknox-transfer.ts.
   */
  async import(
    lines: AsyncIterable<string>,
    append: boolean,
    /** Empty the registry first (reset), in the same operation: a snapshot's restore. */
    replace = false,
  ): Promise<ImportResult> {
    // The reader first, before any await: a readline interface hands out only the lines that
    // come after its iterator exists, and a store that answers count() over the network
    // (PostgreSQL) let the whole body arrive and close meanwhile: the import waited forever.
    const reader = lines[Symbol.asyncIterator]();
    const source: AsyncIterable<string> = { [Symbol.asyncIterator]: () => reader };
    if (replace) return this.#replace(source);
    if (!append && (await this.#store.count()) > 0) throw new CardsError('IMPORT_NOT_EMPTY');
    return insertLines(this.#store, this.#keyknox, source, append, false);
  }

  /**
   * A snapshot's restore as one operation: every line is checked, chain rules included, before
   * anything is emptied, so a dump refused at any line changes nothing; a store write that
   * fails part-way empties the registry again and puts back what it held (cards and Keyknox;
   * the log, never rewound, begins anew).
   */
  async #replace(lines: AsyncIterable<string>): Promise<ImportResult> {
    const dump = await checkedDump(lines, this.#keyknox);
    const previous: string[] = [];
    for await (const page of this.export()) previous.push(page);
    await this.reset({ confirm: 'reset' });
    try {
      return await insertLines(this.#store, this.#keyknox, dump, false, true);
    } catch (err) {
      const undone = await this.reset({ confirm: 'reset' })
        .then(() => insertLines(this.#store, this.#keyknox, toLines(previous), false, true))
        .then(
          () => 'the registry holds what it held before; the log began anew',
          (again: unknown) => `putting the previous registry back failed too: ${String(again)}`,
        );
      if (!isCardsError(err)) throw err;
      throw reworded(err, `The restore failed: ${err.message} (${undone}).`, { hint: undefined });
    }
  }

  async reset(body: unknown): Promise<void> {
    const confirm = (body as { confirm?: unknown } | undefined)?.confirm;
    if (confirm !== 'reset') throw new CardsError('RESET_NOT_CONFIRMED');
    const store = this.#store;
    if (this.#log) await this.#log.reset(() => store.reset());
    else await store.reset();
    await this.#keyknox?.reset();
  }
}
