/**
 * Every engine, opened the same way for the engine contract suite (contract.ts) and for the
 * suites parametrised over engines (registry, HTTP app, races): `CARDS_TEST_ENGINE` (memory,
 * json or postgres) picks the engine of a suite written once; its `*-postgres.test.ts` twin sets
 * it before importing the suite. Engines are opened through the engine list, by target, as the
 * server opens them.
 *
 * `cards` preloads a store (checked like a store being opened: impossible relations are
 * STORE_CORRUPT), `beforeAppend` delays or fails a write. The memory store does both itself; for
 * the others a test-only wrapper runs `beforeAppend` before the engine's insert and hands the
 * inserts to the engine in the order they passed it, so a gate opened on racing writes lets the
 * first one win, as the memory store's reservations do.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { MEMORY_TARGET, openEngine, type Engine } from '../../src/server/open-engine.js';
import { MemoryStore, type MemoryStoreOptions } from '../../src/store/memory/memory-store.js';
import type { CardStore, StoredCard } from '../../src/store/store.js';
import { freshStoreUrl } from '../helpers/postgres.js';

export type EngineName = 'memory' | 'json' | 'postgres';
export const ENGINE_NAMES: readonly EngineName[] = ['memory', 'json', 'postgres'];

/** The engine a parametrised suite runs on (CARDS_TEST_ENGINE; default memory). */
export function testEngine(): EngineName {
  const name = process.env.CARDS_TEST_ENGINE ?? 'memory';
  if (!(ENGINE_NAMES as readonly string[]).includes(name))
    throw new Error(`CARDS_TEST_ENGINE=${name}: expected one of ${ENGINE_NAMES.join(', ')}`);
  return name as EngineName;
}

/** Where an engine keeps what it holds, so that it can be opened again (reopen). */
export interface EngineFactory {
  readonly name: string;
  /** Whether the engine must keep what it holds across close and reopen (memory: it forgets). */
  readonly durable: boolean;
  /** A new empty place: a target (a temp file, a fresh database). */
  place(): Promise<string>;
  /** Opens the engine at `place` (again). */
  open(place: string): Promise<Engine>;
}

let root: string | undefined;
let dirs = 0;
const tempRoot = (): string => {
  if (!root) {
    const made = mkdtempSync(join(tmpdir(), 'cards-engines-'));
    root = made;
    after(() => rmSync(made, { recursive: true, force: true }));
  }
  return root;
};

/** An engine opened by target through the engine list, as `cards serve` opens it. */
export const byTarget = (
  name: string,
  durable: boolean,
  place: () => Promise<string>,
): EngineFactory => ({
  name,
  durable,
  place,
  open: (target) => openEngine(target, { poolSize: 8 }),
});

export const ENGINES: Record<EngineName, EngineFactory> = {
  memory: byTarget('memory', false, async () => MEMORY_TARGET),
  json: byTarget('json', true, async () => join(tempRoot(), `s${++dirs}`, 'cards.json')),
  postgres: byTarget('postgres', true, () => freshStoreUrl()),
};

/** Every card of a store in insertion order. */
export async function allCards(store: CardStore): Promise<StoredCard[]> {
  const cards: StoredCard[] = [];
  for (;;) {
    const page = await store.scan(cards.length, 1000);
    cards.push(...page);
    if (page.length < 1000) return cards;
  }
}

async function* each<T>(items: readonly T[]): AsyncGenerator<T> {
  yield* items;
}

/** A store of engine `name` for a test, with the memory store's test options. */
export async function openTestStore(
  name: EngineName,
  options: MemoryStoreOptions = {},
): Promise<CardStore> {
  if (name === 'memory') return new MemoryStore(options);
  // Impossible relations are refused as a store being opened refuses them (STORE_CORRUPT).
  if (options.cards) new MemoryStore({ cards: options.cards });
  const factory = ENGINES[name];
  const engine = await factory.open(await factory.place());
  after(() => engine.close().catch(() => undefined));
  if (options.cards?.length) await engine.importCards(each(options.cards));
  return options.beforeAppend ? gated(engine.cards, options.beforeAppend) : engine.cards;
}

/** The store with `beforeAppend` run before each insert; inserts reach it in that order. */
function gated(
  store: CardStore,
  beforeAppend: NonNullable<MemoryStoreOptions['beforeAppend']>,
): CardStore {
  let turn: Promise<unknown> = Promise.resolve();
  return {
    location: store.location,
    getCard: (id) => store.getCard(id),
    lastOfChain: (id) => store.lastOfChain(id),
    chainsOf: (identities) => store.chainsOf(identities),
    scan: (from, limit) => store.scan(from, limit),
    listCards: (after, limit) => store.listCards(after, limit),
    listIdentities: (query) => store.listIdentities(query),
    cardsWithIdPrefix: (query) => store.cardsWithIdPrefix(query),
    reset: () => store.reset(),
    count: () => store.count(),
    stats: () => store.stats(),
    close: () => store.close(),
    async insert(card) {
      const passed = Promise.resolve().then(() => beforeAppend(card));
      // In the order the cards arrived, once the earlier ones are through the gate and started.
      const mine = turn.then(() => passed).then(() => store.insert(card));
      turn = mine.catch(() => undefined);
      return mine;
    },
  };
}
