/**
 * The Keyknox listing's pages (src/store/keyknox.ts `v1Page`, `v2Page`), written once and run
 * against each engine (memory.test.ts, json.test.ts, postgres.test.ts): every blob and entry of
 * every app exactly once across pages, in address order part by part, after an address whether
 * or not it is still stored, metadata only (sizes, readers, hash, dates), deletions and resets
 * seen, and the same pages after close and reopen on a durable engine.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { utf8 } from '../../src/core/encoding.js';
import type { KeyknoxStore, KeyknoxV1Address, KeyknoxV2Address } from '../../src/store/keyknox.js';
import type { EngineFactory } from './engines.js';

/**
 * Address parts that sort differently as tuples than as joined text ('a' < 'a!' < 'ab'), and by
 * code point than by UTF-16 code unit (U+FF21 before U+1F600).
 */
const PARTS = ['', 'a', 'a!', 'ab', 'B', 'é', '\uFF21', '\u{1F600}'];

/** Part by part, each in code-point order (the order of its UTF-8 bytes). */
const compareParts = (a: readonly string[], b: readonly string[]): number => {
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as string;
    const y = b[i] as string;
    if (x !== y) return Buffer.compare(Buffer.from(x), Buffer.from(y));
  }
  return 0;
};

/** Every page of `page`, `size` at a time, following the last address of each. */
async function walk<A, T extends { address: A }>(
  page: (after: A | undefined, limit: number) => Promise<T[]>,
  size: number,
): Promise<T[]> {
  const all: T[] = [];
  for (let after: A | undefined; ;) {
    const got = await page(after, size);
    assert.ok(got.length <= size, 'never more than the limit');
    all.push(...got);
    if (got.length < size) return all;
    after = got.at(-1)!.address;
  }
}

const v1Parts = (a: KeyknoxV1Address) => [a.app, a.identity];
const v2Parts = (a: KeyknoxV2Address) => [a.app, a.owner, a.root, a.path, a.key];

async function fill(store: KeyknoxStore): Promise<void> {
  let n = 0;
  for (const app of ['app', 'app!', 'b'])
    for (const identity of PARTS) {
      const record = {
        meta: utf8('m'.repeat(n % 3)),
        value: utf8('v'.repeat(n)),
        version: 1 + (n % 4),
        hash: `h${n}`,
        revision: 1,
        created: 1_000 + n,
        updated: 2_000 + n,
      };
      n++;
      assert.equal(await store.v1Put({ app, identity }, record, 0), true);
    }
  for (const owner of ['alice', 'alice!', 'bob'])
    for (const root of ['r', 'r!'])
      for (const key of PARTS) {
        const address = { app: 'app', owner, root, path: 'p', key };
        const entry = {
          address,
          copies: [
            { meta: utf8('mm'), value: utf8(`owner ${key}`) },
            { meta: utf8('old'), value: utf8('older copy, not the owner’s') },
          ],
          readers: [
            { identity: 'carol', copy: 1 },
            { identity: 'dave', copy: 0 },
          ],
          hash: `h ${owner} ${key}`,
          revision: 1,
          created: 5,
        };
        assert.equal(await store.v2Put(entry, 0), true);
      }
}

export function describeKeyknoxPages(factory: EngineFactory): void {
  describe(`Keyknox pages: ${factory.name}`, () => {
    test('every blob and entry once, in address order part by part, metadata only', async (t) => {
      const place = await factory.place();
      const engine = await factory.open(place);
      t.after(() => engine.close());
      const store = engine.keyknox;
      assert.deepEqual(await store.v1Page(undefined, 10), []);
      assert.deepEqual(await store.v2Page(undefined, 10), []);
      await fill(store);
      const v1 = await walk(store.v1Page.bind(store), 4);
      assert.equal(v1.length, 3 * PARTS.length);
      const sorted = [...v1].sort((a, b) => compareParts(v1Parts(a.address), v1Parts(b.address)));
      assert.deepEqual(v1, sorted, 'in order');
      assert.deepEqual(await walk(store.v1Page.bind(store), 1000), v1, 'any page size');
      const first = v1.find((b) => b.address.app === 'app' && b.address.identity === 'a');
      assert.deepEqual(first, {
        address: { app: 'app', identity: 'a' },
        version: 2,
        hash: 'h1',
        size: 2,
        created: 1_001,
        updated: 2_001,
      });
      const v2 = await walk(store.v2Page.bind(store), 5);
      assert.equal(v2.length, 3 * 2 * PARTS.length);
      assert.deepEqual(
        v2.map((e) => v2Parts(e.address)),
        v2.map((e) => v2Parts(e.address)).sort(compareParts),
      );
      assert.deepEqual(
        v2.find((e) => e.address.owner === 'bob' && e.address.key === 'é'),
        {
          address: { app: 'app', owner: 'bob', root: 'r', path: 'p', key: 'é' },
          readers: ['carol', 'dave'],
          hash: 'h bob é',
          size: 2 + Buffer.byteLength('owner é'),
          created: 5,
        },
        "the owner's copy's size; no updated date where the entry has none",
      );
    });

    test('after an address no longer stored, deletions and resets seen, same pages after reopen', async () => {
      const place = await factory.place();
      const engine = await factory.open(place);
      const store = engine.keyknox;
      await fill(store);
      const before = await walk(store.v2Page.bind(store), 7);
      const gone = before[10]!.address;
      assert.equal(await store.v2Delete(gone, 1), true);
      const after = await store.v2Page(gone, 3);
      assert.deepEqual(after, before.slice(11, 14), 'the page after a deleted address');
      const now = await walk(store.v2Page.bind(store), 7);
      assert.deepEqual(now, [...before.slice(0, 10), ...before.slice(11)]);
      const v1 = await walk(store.v1Page.bind(store), 7);
      await engine.close();
      const again = await factory.open(place);
      try {
        if (factory.durable) {
          assert.deepEqual(await walk(again.keyknox.v2Page.bind(again.keyknox), 7), now);
          assert.deepEqual(await walk(again.keyknox.v1Page.bind(again.keyknox), 7), v1);
        }
        await again.keyknox.reset();
        assert.deepEqual(await again.keyknox.v1Page(undefined, 10), []);
        assert.deepEqual(await again.keyknox.v2Page(undefined, 10), []);
        const entry = {
          address: gone,
          copies: [{ meta: utf8(''), value: utf8('') }],
          readers: [],
          hash: 'h',
          revision: 1,
        };
        assert.equal(await again.keyknox.v2Put(entry, 0), true);
        assert.deepEqual(await again.keyknox.v2Page(undefined, 10), [
          { address: gone, readers: [], hash: 'h', size: 0 },
        ]);
      } finally {
        await again.close();
      }
    });
  });
}
