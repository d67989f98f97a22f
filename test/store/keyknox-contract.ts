/**
 * The Keyknox storage contract (src/store/keyknox.ts), written once and run against each engine
 * (memory.test.ts, json.test.ts, postgres.test.ts): compare-and-swap on the revision (of racing
 * writes from one revision exactly one lands), copies in and out, listing by owner, root and
 * path in code-point order, bytes and dates kept exactly, and what survives close and reopen on a
 * durable engine.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { utf8 } from '../../src/core/encoding.js';
import { KeyknoxV2 } from '../../src/registry/keyknox-v2.js';
import type { Engine } from '../../src/store/engine.js';
import type { KeyknoxV2Entry } from '../../src/store/keyknox.js';
import type { EngineFactory } from './engines.js';

const entry = (key: string, revision: number, root = 'r', path = 'p'): KeyknoxV2Entry => ({
  address: { app: 'app', owner: 'alice', root, path, key },
  copies: [{ meta: utf8('m'), value: utf8(key) }],
  readers: [{ identity: 'bob', copy: 0 }],
  hash: `h${revision}`,
  revision,
});

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

export function describeKeyknoxContract(factory: EngineFactory): void {
  describe(`Keyknox contract: ${factory.name}`, () => {
    const fresh = async (): Promise<{ engine: Engine; place: string }> => {
      const place = await factory.place();
      return { engine: await factory.open(place), place };
    };

    test('a write lands only on the revision it names; 0 means nothing stored', async (t) => {
      const { engine } = await fresh();
      t.after(() => engine.close());
      const store = engine.keyknox;
      const a = { app: 'app', identity: 'alice' };
      const record = { meta: utf8('m'), value: utf8('v'), version: 1, hash: 'h', revision: 1 };
      assert.equal(await store.v1Put(a, record, 1), false);
      assert.equal(await store.v1Put(a, record, 0), true);
      assert.equal(await store.v1Put(a, { ...record, revision: 2 }, 0), false);
      assert.equal(await store.v1Put(a, { ...record, revision: 2 }, 1), true);
      assert.equal((await store.v1Get(a))?.revision, 2);
      assert.equal(await store.v2Put(entry('k', 1), 0), true);
      assert.equal(await store.v2Put(entry('k', 2), 0), false);
      assert.equal(await store.v2Delete(entry('k', 1).address, 2), false);
      assert.equal(await store.v2Delete(entry('k', 1).address, 1), true);
      assert.equal(await store.v2Delete(entry('k', 1).address, 1), false);
      assert.equal(await store.v2Get(entry('k', 1).address), undefined);
    });

    test('racing writes from one revision: exactly one lands', async (t) => {
      const { engine } = await fresh();
      t.after(() => engine.close());
      const store = engine.keyknox;
      const a = { app: 'app', identity: 'racer' };
      const record = (n: number) => ({
        meta: utf8('m'),
        value: utf8(String(n)),
        version: 1,
        hash: `h${n}`,
        revision: 1,
      });
      const first = await Promise.all([0, 1, 2, 3].map((n) => store.v1Put(a, record(n), 0)));
      assert.equal(first.filter(Boolean).length, 1, 'one insert of four');
      const winner = first.indexOf(true);
      assert.equal((await store.v1Get(a))?.hash, `h${winner}`);
      const second = await Promise.all(
        [4, 5, 6].map((n) => store.v1Put(a, { ...record(n), revision: 2 }, 1)),
      );
      assert.equal(second.filter(Boolean).length, 1, 'one update of three');
      const v2 = await Promise.all([1, 2, 3].map(() => store.v2Put(entry('race', 1), 0)));
      assert.equal(v2.filter(Boolean).length, 1);
      const deleted = await Promise.all(
        [1, 2].map(() => store.v2Delete(entry('race', 1).address, 1)),
      );
      assert.equal(deleted.filter(Boolean).length, 1);
    });

    test('what a caller holds is a copy: changing it changes nothing stored', async (t) => {
      const { engine } = await fresh();
      t.after(() => engine.close());
      const store = engine.keyknox;
      const e = entry('k', 1);
      await store.v2Put(e, 0);
      e.copies[0]!.value.fill(0);
      const got = await store.v2Get(e.address);
      assert.equal(Buffer.from(got!.copies[0]!.value).toString(), 'k');
      got!.copies[0]!.value.fill(0);
      assert.equal(Buffer.from((await store.v2Get(e.address))!.copies[0]!.value).toString(), 'k');
    });

    test('list: one owner’s entries under a root and path, ordered by root, path, key', async (t) => {
      const { engine } = await fresh();
      t.after(() => engine.close());
      const store = engine.keyknox;
      for (const [key, root, path] of [
        ['b', 'r', 'p'],
        ['a', 'r', 'p'],
        ['c', 'r', 'q'],
        ['d', 's', 'p'],
        ['B', 'r', 'p'],
        ['é', 'r', 'p'],
      ] as const)
        await store.v2Put(entry(key, 1, root, path), 0);
      await store.v2Put(
        { ...entry('z', 1), address: { ...entry('z', 1).address, owner: 'bob' } },
        0,
      );
      const keys = async (f: { root?: string; path?: string }) =>
        (await store.v2List({ app: 'app', owner: 'alice', ...f })).map((s) => s.address.key);
      assert.deepEqual(await keys({}), ['B', 'a', 'b', 'é', 'c', 'd']);
      assert.deepEqual(await keys({ root: 'r' }), ['B', 'a', 'b', 'é', 'c']);
      assert.deepEqual(await keys({ root: 'r', path: 'p' }), ['B', 'a', 'b', 'é']);
      assert.deepEqual(
        (await store.v2List({ app: 'app', owner: 'alice', root: 's' }))[0]?.readers,
        ['bob'],
      );
      assert.deepEqual(await store.v2List({ app: 'other', owner: 'alice' }), []);
    });

    test('v2 rule 5: a copy no reader holds any more is dropped from the stored entry', async (t) => {
      const { engine } = await fresh();
      t.after(() => engine.close());
      const store = engine.keyknox;
      const v2 = new KeyknoxV2(store);
      const at = { root: 'r', path: 'p', key: 'k' };
      const c = (text: string) => ({ meta: utf8(text), value: utf8(text) });
      let hash = (
        await v2.push('app', 'alice', { ...at, identities: ['bob'], ...c('a') }, undefined)
      ).hash;
      hash = (await v2.push('app', 'alice', { ...at, identities: ['carol'], ...c('b') }, hash))
        .hash;
      const address = { app: 'app', owner: 'alice', ...at };
      assert.equal((await store.v2Get(address))?.copies.length, 2);
      await v2.reset('app', 'alice', { ...at, identity: 'bob' });
      const after = await store.v2Get(address);
      assert.equal(after?.copies.length, 1);
      assert.deepEqual(after?.readers, [{ identity: 'carol', copy: 0 }]);
      assert.equal(after?.hash, hash);
    });

    test('records: every blob, then every entry, of every app and owner, whole', async (t) => {
      const { engine } = await fresh();
      t.after(() => engine.close());
      const store = engine.keyknox;
      assert.deepEqual(await collect(store.records()), []);
      const blob = { meta: utf8('m'), value: utf8('v'), version: 2, hash: 'h', revision: 3 };
      const blobs = ['', 'a', 'b'].flatMap((app) =>
        ['', 'x'].map((identity) => ({ app, identity })),
      );
      for (const a of blobs) assert.equal(await store.v1Put(a, blob, 0), true);
      // More than one page of PostgreSQL's keyset paging (200 a page).
      const keys = Array.from({ length: 230 }, (_, i) => `k${String(i).padStart(3, '0')}`);
      for (const key of keys) assert.equal(await store.v2Put(entry(key, 1), 0), true);
      const other = { ...entry('z', 4), address: { ...entry('z', 4).address, app: 'other' } };
      assert.equal(await store.v2Put(other, 0), true);
      const all = await collect(store.records());
      const v1 = all.filter((r) => r.kind === 'keyknox1');
      const v2 = all.flatMap((r) => (r.kind === 'keyknox2' ? [r.entry] : []));
      assert.deepEqual(all.slice(0, v1.length), v1, 'blobs first');
      assert.deepEqual(
        v1.map((r) => JSON.stringify(r.address)).sort(),
        blobs.map((a) => JSON.stringify(a)).sort(),
      );
      for (const r of v1) assert.deepEqual(r.record, blob);
      assert.equal(v2.length, keys.length + 1);
      assert.deepEqual(
        v2
          .filter((e) => e.address.app === 'app')
          .map((e) => e.address.key)
          .sort(),
        keys,
      );
      assert.deepEqual(
        v2.find((e) => e.address.app === 'other'),
        other,
      );
      assert.deepEqual(
        v2.find((e) => e.address.key === 'k007'),
        entry('k007', 1),
      );
    });

    test('reset empties every blob and entry, durably; writes go on after it', async () => {
      const { engine, place } = await fresh();
      const a = { app: 'app', identity: 'alice' };
      const record = { meta: utf8('m'), value: utf8('v'), version: 1, hash: 'h', revision: 1 };
      assert.equal(await engine.keyknox.v1Put(a, record, 0), true);
      assert.equal(await engine.keyknox.v2Put(entry('k', 1), 0), true);
      await engine.keyknox.reset();
      assert.equal(await engine.keyknox.v1Get(a), undefined);
      assert.deepEqual(await engine.keyknox.v2List({ app: 'app', owner: 'alice' }), []);
      assert.equal(await engine.keyknox.v1Put(a, record, 0), true, 'a first write again');
      await engine.close();
      const again = await factory.open(place);
      try {
        if (factory.durable) assert.equal((await again.keyknox.v1Get(a))?.revision, 1);
        assert.equal(await again.keyknox.v2Get(entry('k', 1).address), undefined);
      } finally {
        await again.close();
      }
    });

    test('bytes kept exactly, and kept across close and reopen on a durable engine', async () => {
      const { engine, place } = await fresh();
      const every = new Uint8Array(256).map((_, i) => i);
      const a = { app: 'app', identity: 'ünïcode ✓' };
      const record = {
        meta: every,
        value: every.slice(1),
        version: 3,
        hash: 'h=',
        revision: 1,
        created: 1_764_000_000_123,
        updated: 1_764_000_100_456,
      };
      assert.equal(await engine.keyknox.v1Put(a, record, 0), true);
      const e: KeyknoxV2Entry = {
        address: { app: 'app', owner: 'alice', root: 'e3kit', path: 'backup', key: 'k/ü' },
        copies: [
          { meta: every, value: every },
          { meta: utf8('old'), value: utf8('old') },
        ],
        readers: [
          { identity: 'alice', copy: 0 },
          { identity: 'bob', copy: 1 },
        ],
        hash: 'x',
        revision: 1,
        created: 1,
        updated: 1_764_000_200_789,
      };
      assert.equal(await engine.keyknox.v2Put(e, 0), true);
      // A record without dates (a dump line written before records had them) stays without.
      const undated = { app: 'app', identity: 'undated' };
      const withoutCreated = { ...record, created: undefined };
      delete withoutCreated.created;
      assert.equal(await engine.keyknox.v1Put(undated, withoutCreated, 0), true);
      assert.equal(await engine.keyknox.v2Put({ ...entry('gone', 1) }, 0), true);
      assert.equal(await engine.keyknox.v2Delete(entry('gone', 1).address, 1), true);
      await engine.close();
      const again = await factory.open(place);
      try {
        if (!factory.durable) {
          assert.equal(await again.keyknox.v1Get(a), undefined, 'a forgetting engine forgets');
          return;
        }
        assert.deepEqual(await again.keyknox.v1Get(a), record);
        assert.deepEqual(await again.keyknox.v2Get(e.address), e);
        assert.deepEqual(await again.keyknox.v1Get(undated), withoutCreated);
        assert.equal(await again.keyknox.v2Get(entry('gone', 1).address), undefined);
        assert.equal(await again.keyknox.v1Put(a, { ...record, revision: 2 }, 1), true);
      } finally {
        await again.close();
      }
    });
  });
}
