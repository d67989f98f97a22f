/**
 * How much of the store one page of the admin Keyknox listing reads (src/registry/
 * keyknox-listing.ts): entries whose readers pass the page's bytes (LIMITS.adminPageBytes) are
 * read a chunk at a time and no further, so a page asked for 1,000 rows does not pull every one
 * of them with its readers out of the store (on PostgreSQL, out of the database) to send a few
 * MiB; and a walk by next_cursor still lists every entry once.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LIMITS } from '../../src/core/limits.js';
import { listKeyknox } from '../../src/registry/keyknox-listing.js';
import type { KeyknoxStore, KeyknoxV2Listed } from '../../src/store/keyknox.js';
import { MemoryKeyknoxStore } from '../../src/store/memory/keyknox-store.js';

const ENTRIES = 200;
/** 256 readers of 1,000 bytes: ~256 KB of readers an entry, ~16 entries a page. */
const READERS = Array.from({ length: 256 }, (_, i) => ({
  identity: `${String(i).padStart(4, '0')}${'r'.repeat(996)}`,
  copy: 0,
}));

async function filled(): Promise<MemoryKeyknoxStore> {
  const store = new MemoryKeyknoxStore();
  for (let i = 0; i < ENTRIES; i++) {
    const address = { app: 'app', owner: 'alice', root: 'r', path: 'p', key: `k${1000 + i}` };
    const entry = {
      address,
      copies: [{ meta: new Uint8Array(1), value: new Uint8Array(1) }],
      readers: READERS,
      hash: `h${i}`,
      revision: 1,
      created: 1_000,
      updated: 1_000,
    };
    assert.equal(await store.v2Put(entry, 0), true);
  }
  return store;
}

test('a page of entries with long reader lists reads a chunk past its bytes, not its whole limit', async () => {
  const memory = await filled();
  let read = 0;
  const counting = new Proxy(memory, {
    get(target, name) {
      if (name === 'v2Page')
        return async (...args: Parameters<KeyknoxStore['v2Page']>) => {
          const rows: KeyknoxV2Listed[] = await target.v2Page(...args);
          read += rows.length;
          return rows;
        };
      const value: unknown = Reflect.get(target, name);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });

  const page = await listKeyknox(counting, undefined, 1000);
  const perPage = Math.floor(LIMITS.adminPageBytes / (READERS.length * 1003));
  assert.ok(
    page.items.length >= perPage - 1 && page.items.length <= perPage,
    `${page.items.length} rows`,
  );
  assert.ok(page.next !== null);
  assert.ok(
    read <= page.items.length + 32,
    `${read} entries read for a page of ${page.items.length}`,
  );

  const keys = page.items.map((row) => row.key);
  for (let cursor: string | null = page.next; cursor !== null;) {
    const next = await listKeyknox(counting, cursor, 1000);
    keys.push(...next.items.map((row) => row.key));
    cursor = next.next;
  }
  assert.deepEqual(
    keys,
    Array.from({ length: ENTRIES }, (_, i) => `k${1000 + i}`),
  );
});
