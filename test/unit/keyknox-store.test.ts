// The Keyknox storage contract (src/store/keyknox.ts) as the in-memory store keeps it:
// compare-and-swap on the revision, copies in and out, listing by owner, root and path.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { utf8 } from '../../src/core/encoding.js';
import type { KeyknoxV2Entry } from '../../src/store/keyknox.js';
import { MemoryKeyknoxStore } from '../../src/store/memory/keyknox-store.js';
import { KeyknoxV2 } from '../../src/registry/keyknox-v2.js';

const entry = (key: string, revision: number, root = 'r', path = 'p'): KeyknoxV2Entry => ({
  address: { app: 'app', owner: 'alice', root, path, key },
  copies: [{ meta: utf8('m'), value: utf8(key) }],
  readers: [{ identity: 'bob', copy: 0 }],
  hash: `h${revision}`,
  revision,
});

test('a write lands only on the revision it names; 0 means nothing stored', async () => {
  const store = new MemoryKeyknoxStore();
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

test('what a caller holds is a copy: changing it changes nothing stored', async () => {
  const store = new MemoryKeyknoxStore();
  const e = entry('k', 1);
  await store.v2Put(e, 0);
  e.copies[0]!.value.fill(0);
  const got = await store.v2Get(e.address);
  assert.equal(Buffer.from(got!.copies[0]!.value).toString(), 'k');
  got!.copies[0]!.value.fill(0);
  assert.equal(Buffer.from((await store.v2Get(e.address))!.copies[0]!.value).toString(), 'k');
});

test('list: one owner’s entries under a root and path, ordered by root, path, key', async () => {
  const store = new MemoryKeyknoxStore();
  for (const [key, root, path] of [
    ['b', 'r', 'p'],
    ['a', 'r', 'p'],
    ['c', 'r', 'q'],
    ['d', 's', 'p'],
  ] as const)
    await store.v2Put(entry(key, 1, root, path), 0);
  await store.v2Put({ ...entry('z', 1), address: { ...entry('z', 1).address, owner: 'bob' } }, 0);
  const keys = async (f: { root?: string; path?: string }) =>
    (await store.v2List({ app: 'app', owner: 'alice', ...f })).map((s) => s.address.key);
  assert.deepEqual(await keys({}), ['a', 'b', 'c', 'd']);
  assert.deepEqual(await keys({ root: 'r' }), ['a', 'b', 'c']);
  assert.deepEqual(await keys({ root: 'r', path: 'p' }), ['a', 'b']);
  assert.deepEqual((await store.v2List({ app: 'app', owner: 'alice', root: 's' }))[0]?.readers, [
    'bob',
  ]);
});

test('v2 rule 5: a copy no reader holds any more is dropped from the stored entry', async () => {
  const store = new MemoryKeyknoxStore();
  const v2 = new KeyknoxV2(store);
  const at = { root: 'r', path: 'p', key: 'k' };
  const c = (text: string) => ({ meta: utf8(text), value: utf8(text) });
  let hash = (await v2.push('app', 'alice', { ...at, identities: ['bob'], ...c('a') }, undefined))
    .hash;
  hash = (await v2.push('app', 'alice', { ...at, identities: ['carol'], ...c('b') }, hash)).hash;
  const address = { app: 'app', owner: 'alice', ...at };
  assert.equal((await store.v2Get(address))?.copies.length, 2);
  await v2.reset('app', 'alice', { ...at, identity: 'bob' });
  const after = await store.v2Get(address);
  assert.equal(after?.copies.length, 1);
  assert.deepEqual(after?.readers, [{ identity: 'carol', copy: 0 }]);
  assert.equal(after?.hash, hash);
});
