/**
 * The memory engine (`cards serve --memory`, the target "memory:"): cards, secrets and the log's
 * tiles held by this process only, made on open and forgotten on close (durable: false).
 */
import { MemoryTileStore } from '../../log/tile-store.js';
import type { Engine, EngineKind, KeptSecret, SecretName } from '../engine.js';
import { importInOrder } from '../import-cards.js';
import { MemoryKeyknoxStore } from './keyknox-store.js';
import { MemoryStore } from './memory-store.js';

export const MEMORY_TARGET = 'memory:';

/** What a memory engine holds; another engine may hand in its own to keep it across opens. */
export interface MemoryParts {
  readonly cards?: MemoryStore;
  readonly secrets?: Map<SecretName, string>;
  readonly tiles?: MemoryTileStore;
  readonly keyknox?: MemoryKeyknoxStore;
}

export function openMemoryEngine(parts: MemoryParts = {}): Engine {
  const cards = parts.cards ?? new MemoryStore();
  const kept = parts.secrets ?? new Map<SecretName, string>();
  const close = (): Promise<void> => cards.close();
  return {
    name: 'memory',
    durable: false,
    description: 'memory',
    cards,
    secrets: {
      async keep(name, make): Promise<KeptSecret> {
        const found = kept.get(name);
        const value = found ?? make().trim();
        kept.set(name, value);
        return { value, created: found === undefined, where: 'made for this run' };
      },
    },
    keyknox: parts.keyknox ?? new MemoryKeyknoxStore(),
    tiles: parts.tiles ?? new MemoryTileStore(),
    importCards: (source) => importInOrder(cards, source),
    close,
    discard: close,
  };
}

export const memory: EngineKind = {
  name: 'memory',
  targets: `"${MEMORY_TARGET}" (\`cards serve --memory\`: nothing kept)`,
  matches: (target) => target === MEMORY_TARGET,
  open: async () => openMemoryEngine(),
};
