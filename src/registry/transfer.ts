/**
 * Moving a registry between stores (issue 14, `cards export` / `cards import`): NDJSON, one
 * stored record per line exactly as the JSON store writes it (store/record.ts serializeCard),
 * in insertion order, streaming both ways (a page or a batch of cards in memory, never the
 * store), so a move is byte-identical and JSON → PostgreSQL → JSON gives the same store file.
 *
 * Import checks every card before it is stored: its record's shape, its id (the SHA-256 of its
 * snapshot, spec 2.4), the snapshot's identity, previous card and revoking flag against the
 * record, and the self signature of a card with a key (spec 2.3); the chain rules are the
 * store's atomic insert's (src/core/chain.ts), card by card. The service signature is kept as
 * it is: it was made by the service the cards come from.
 */
import { cardIdOf } from '../core/card-id.js';
import { decodeBase64 } from '../core/encoding.js';
import { CardsError } from '../core/errors.js';
import { decodeSnapshot } from '../core/snapshot.js';
import { readStoredCard, serializeCard } from '../store/record.js';
import type { CardStore, StoredCard } from '../store/store.js';
import { parseStoredLine } from '../store/stored-line.js';
import { checkSelfSignature } from './self-signature.js';

const PAGE = 1000;

/** Writes every card of `store`, one line each, in insertion order; resolves with the count. */
export async function exportCards(
  store: CardStore,
  write: (chunk: string) => Promise<void>,
): Promise<number> {
  let from = 0;
  for (;;) {
    const page = await store.scan(from, PAGE);
    if (page.length > 0) await write(page.map((card) => `${serializeCard(card)}\n`).join(''));
    from += page.length;
    if (page.length < PAGE) return from;
  }
}

/** One line of a dump → a checked stored card; VERIFICATION_FAILED / STORE_CORRUPT name it. */
export function verifiedCard(line: string, where: string): StoredCard {
  let card: StoredCard | undefined = parseStoredLine(line);
  if (!card) {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new CardsError('STORE_CORRUPT', `${where} is not valid JSON.`);
    }
    card = readStoredCard(value, where);
  }
  const fail = (why: string): CardsError =>
    new CardsError('VERIFICATION_FAILED', `${where} (card ${card.id}): ${why}.`);
  let snapshot;
  try {
    snapshot = decodeSnapshot(card.content_snapshot, card.revoking ? 'revocation' : 'card');
  } catch (err) {
    throw fail(`its snapshot does not decode (${(err as Error).message})`);
  }
  if (cardIdOf(snapshot.bytes) !== card.id) throw fail('its id is not the hash of its snapshot');
  if (snapshot.identity !== card.identity) throw fail('its identity is not the snapshot’s');
  if (snapshot.previousCardId !== card.previous_card_id)
    throw fail('its previous_card_id is not the snapshot’s');
  if ((snapshot.publicKey.byteLength === 0) !== (card.revoking === true))
    throw fail('its revoking flag does not match the snapshot’s public key');
  if (!card.revoking) {
    const self = card.signatures.find((entry) => entry.signer === 'self');
    if (!self) throw fail('it has no self signature');
    const signature = decodeBase64(self.signature);
    const extra = self.snapshot === undefined ? new Uint8Array() : decodeBase64(self.snapshot);
    if (!signature || !extra) throw fail('its self signature is not base64');
    try {
      checkSelfSignature(snapshot, { signer: 'self', signature, snapshot: extra, raw: self });
    } catch (err) {
      throw fail((err as Error).message);
    }
  }
  return card;
}

export interface ImportOptions {
  /** Add to a store that holds cards already (each card checked against them). */
  readonly append?: boolean;
  /** A batch of cards in one transaction (PostgreSQL, into an empty store). */
  readonly insertMany?: (cards: readonly StoredCard[]) => Promise<void>;
}

/** Stores the dump's cards in order; resolves with how many. */
export async function importCards(
  store: CardStore,
  lines: AsyncIterable<string>,
  options: ImportOptions = {},
): Promise<number> {
  // Start listening before the first await: a readline interface emits the lines it has read
  // whether or not anyone iterates yet, and lines emitted before that are lost.
  const iterator = lines[Symbol.asyncIterator]();
  const input = { [Symbol.asyncIterator]: () => iterator };
  const existing = await store.count();
  if (existing > 0 && !options.append)
    throw new CardsError(
      'STORE_NOT_EMPTY',
      `The store ${store.location} holds ${existing} cards already; import into an empty store, or pass --append to add the cards one by one with the registry's rules.`,
    );
  const bulk = existing === 0 ? options.insertMany : undefined;
  let n = 0;
  let batch: StoredCard[] = [];
  /** Cards being written (JSON store: group commit), by id. */
  let inFlight = new Map<string, Promise<unknown>>();
  const settle = async (): Promise<void> => {
    await Promise.all(inFlight.values());
    inFlight = new Map();
  };
  const flush = async (): Promise<void> => {
    if (bulk && batch.length > 0) await bulk(batch);
    batch = [];
  };
  for await (const line of input) {
    if (line.trim() === '') continue;
    n++;
    const where = `line ${n} of the dump`;
    const card = verifiedCard(line, where);
    const named = (err: unknown): never => {
      if (err instanceof CardsError)
        throw new CardsError(err.code, `${where} (card ${card.id}): ${err.message}`);
      throw err;
    };
    if (bulk) {
      batch.push(card);
      if (batch.length >= PAGE) await flush().catch(named);
    } else if (options.append) {
      await store.insert(card).catch(named);
    } else {
      // Insert in order without waiting for each write; a card naming one still in flight
      // waits for it (the store checks previous cards against durable ones).
      if (card.previous_card_id !== undefined && inFlight.has(card.previous_card_id))
        await settle();
      inFlight.set(card.id, store.insert(card).catch(named));
      if (inFlight.size >= PAGE) await settle();
    }
  }
  await settle();
  await flush();
  return n;
}
