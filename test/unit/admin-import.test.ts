/**
 * Admin import reads every line even when the store answers its first question slowly (issue
 * 15, found against PostgreSQL): a readline interface gives out only the lines that come after
 * its iterator exists, so an import that awaited the store's count() before iterating lost the
 * whole body of a small request and waited forever.
 */
import assert from 'node:assert/strict';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { generatePrivateKey } from '../../src/crypto/keys.js';
import { Admin } from '../../src/registry/admin.js';
import { createRegistry } from '../../src/registry/registry.js';
import { MemoryStore } from '../../src/store/memory/memory-store.js';
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
