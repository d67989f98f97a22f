/**
 * Adding an engine is a folder and a line in the engine list (docs/development.md), and the
 * engine contract suite says whether it is right. Here an engine made outside src/ — the memory
 * engine's parts, kept per target in this process so that it is durable across close and reopen
 * — is registered under its own scheme, opened by target as the server opens one, and put
 * through the same suite as the built-in engines.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemoryTileStore } from '../../src/log/tile-store.js';
import { openEngine } from '../../src/server/open-engine.js';
import type { EngineKind, SecretName } from '../../src/store/engine.js';
import { registerEngine } from '../../src/store/engines.js';
import { openMemoryEngine } from '../../src/store/memory/index.js';
import { MemoryStore } from '../../src/store/memory/memory-store.js';
import type { StoredCard } from '../../src/store/store.js';
import { describeEngineContract } from './contract.js';
import { byTarget } from './engines.js';

interface Kept {
  cards: StoredCard[];
  readonly secrets: Map<SecretName, string>;
  readonly tiles: MemoryTileStore;
}

const places = new Map<string, Kept>();

const testMem: EngineKind = {
  name: 'test-mem',
  targets: '"test-mem:NAME" (kept in this process)',
  matches: (target) => target.startsWith('test-mem:'),
  async open(target) {
    let kept = places.get(target);
    if (!kept)
      places.set(target, (kept = { cards: [], secrets: new Map(), tiles: new MemoryTileStore() }));
    const state = kept;
    const cards = new MemoryStore({ cards: state.cards });
    const engine = openMemoryEngine({ cards, secrets: state.secrets, tiles: state.tiles });
    const close = async (): Promise<void> => {
      await cards.close();
      state.cards = cards.cards();
    };
    return {
      ...engine,
      name: 'test-mem',
      durable: true,
      description: target,
      close,
      discard: close,
    };
  },
};

registerEngine(testMem);
let n = 0;
describeEngineContract(byTarget('test-mem', true, async () => `test-mem:${++n}`));

test('the registered engine opens its targets; the others still open theirs', async () => {
  const engine = await openEngine('test-mem:check');
  assert.equal(engine.name, 'test-mem');
  await engine.close();
  const memory = await openEngine('memory:');
  assert.equal(memory.name, 'memory');
  assert.equal(memory.durable, false);
  await memory.close();
  await assert.rejects(openEngine('mysql://nobody@localhost/x'), { code: 'STORE_URL_INVALID' });
});
