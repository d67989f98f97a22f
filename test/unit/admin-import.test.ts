/**
 * Admin import reads every line even when the store answers its first question slowly (as
 * PostgreSQL does): a readline interface gives out only the lines that come after its iterator
 * exists, so an import that awaited the store's count() before iterating would lose the whole
 * body of a small request and wait forever. An import with replace (a snapshot's restore) is one
 * operation: a dump refused in its middle changes nothing.
 */
import assert from 'node:assert/strict';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { generatePrivateKey } from '../../src/crypto/keys.js';
import { Admin } from '../../src/registry/admin.js';
import { createRegistry } from '../../src/registry/registry.js';
import { MemoryKeyknoxStore } from '../../src/store/memory/keyknox-store.js';
import { MemoryStore } from '../../src/store/memory/memory-store.js';
import type { CardStore } from '../../src/store/store.js';
import { makeCard } from '../http/card-kit.js';

test('import into a store whose count() takes a network round trip reads every line', async () => {
  const source = new MemoryStore();
  const registry = createRegistry({
    store: source,
    serviceKey: generatePrivateKey(),
    signer: 'service',
  });
  for (const identity of ['alice', 'bob', 'carol'])
    await registry.createCard(makeCard(identity).raw, identity);
  let dump = '';
  for await (const chunk of new Admin(source).export()) dump += chunk;

  const target = new MemoryStore();
  const count = target.count.bind(target);
  target.count = async () => {
    await new Promise((resolve) => setTimeout(resolve, 50)); // a database's answer
    return count();
  };
  const lines = createInterface({ input: Readable.from([dump]), crlfDelay: Infinity });
  const imported = new Admin(target).import(lines, false);
  const late = new Promise((resolve) => setTimeout(resolve, 5000, 'still waiting after 5 s'));
  assert.deepEqual(await Promise.race([imported, late]), {
    imported: 3,
    skipped: 0,
    keyknox: { imported: 0, skipped: 0 },
  });
  assert.equal(await target.count(), 3);
});

/** A memory Keyknox store that counts its resets. */
function countedKeyknox(): { keyknox: MemoryKeyknoxStore; resets: () => number } {
  const keyknox = new MemoryKeyknoxStore();
  const reset = keyknox.reset.bind(keyknox);
  let n = 0;
  keyknox.reset = () => (n++, reset());
  return { keyknox, resets: () => n };
}

/** What GET /_cards/export sends for `store`. */
async function exportOf(store: MemoryStore | CardStore): Promise<string> {
  let dump = '';
  for await (const chunk of new Admin(store).export()) dump += chunk;
  return dump;
}

test('a replacing import refused in the middle of its dump changes nothing', async () => {
  const store = new MemoryStore();
  const registry = createRegistry({ store, serviceKey: generatePrivateKey(), signer: 'service' });
  for (const identity of ['alice', 'bob', 'carol', 'dave'])
    await registry.createCard(makeCard(identity).raw, identity);
  const exported = () => exportOf(store);
  const before = await exported();
  const lines = before.trimEnd().split('\n');
  const { keyknox, resets } = countedKeyknox();
  const admin = new Admin(store, undefined, keyknox);
  const cases: [string, string[], RegExp][] = [
    [
      'a line that is not a record',
      [lines[0], lines[1], '{"id":', lines[3]],
      /line 3\b.*unchanged/i,
    ],
    [
      'a card twice (the chain rules)',
      [lines[0], lines[1], lines[1], lines[2]],
      /line 3\b.*unchanged/i,
    ],
  ].map(([why, dump, message]) => [why as string, dump as string[], message as RegExp]);
  for (const [why, dump, message] of cases) {
    await assert.rejects(admin.import(Readable.from(dump), false, true), message, why);
    assert.equal(await exported(), before, why);
    assert.equal(resets(), 0, why);
  }
  const restored = await admin.import(Readable.from([lines[2], lines[0]]), false, true);
  assert.deepEqual(restored, { imported: 2, skipped: 0, keyknox: { imported: 0, skipped: 0 } });
  assert.equal(await exported(), `${lines[2]}\n${lines[0]}\n`);
  assert.equal(resets(), 1);
});

test('a replacing import whose store write fails part-way puts the previous cards back', async () => {
  let writes = Infinity; // writes left before the store fails one, once
  const store = new MemoryStore({
    beforeAppend: () => {
      if (writes-- === 0) throw new Error('disk full');
    },
  });
  const registry = createRegistry({ store, serviceKey: generatePrivateKey(), signer: 'service' });
  for (const identity of ['alice', 'bob', 'carol'])
    await registry.createCard(makeCard(identity).raw, identity);
  const exported = () => exportOf(store);
  const before = await exported();
  const snapshot = ['dave', 'erin', 'frank'];
  const other = createRegistry({
    store: new MemoryStore(),
    serviceKey: generatePrivateKey(),
    signer: 'service',
  });
  for (const identity of snapshot) await other.createCard(makeCard(identity).raw, identity);
  const dump = await exportOf(other.store);
  const admin = new Admin(store);

  writes = 2; // the third card of the snapshot fails
  const failed = admin.import(Readable.from(dump.trimEnd().split('\n')), false, true);
  await assert.rejects(failed, /restore failed: .*holds what it held before/);
  assert.equal(await exported(), before);
});
