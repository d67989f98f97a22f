// The dates the Keyknox rules (src/registry/keyknox-v1.ts, keyknox-v2.ts) give what they store
// (src/store/keyknox.ts `KeyknoxDates`): created at the first write, updated at every write, from
// the clock the rules are given; and never on the wire (the answers carry no date).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { utf8 } from '../../src/core/encoding.js';
import { KeyknoxV1 } from '../../src/registry/keyknox-v1.js';
import { KeyknoxV2 } from '../../src/registry/keyknox-v2.js';
import { keyknox1Line, keyknox2Line, readKeyknoxLine } from '../../src/store/keyknox-record.js';
import { MemoryKeyknoxStore } from '../../src/store/memory/keyknox-store.js';

/** A clock that says `at` until moved. */
const clockAt = (start: number) => {
  const clock = { at: start, now: () => clock.at };
  return clock;
};
const copy = (text: string) => ({ meta: utf8(text), value: utf8(text) });

describe('Keyknox dates', () => {
  test('v1: created at the first push, updated at each push and reset', async () => {
    const store = new MemoryKeyknoxStore();
    const clock = clockAt(1_000);
    const v1 = new KeyknoxV1(store, clock.now);
    const alice = { app: 'app', identity: 'alice' };
    const first = await v1.push(alice, copy('a'), undefined);
    assert.deepEqual(Object.keys(first).sort(), ['hash', 'meta', 'value', 'version']);
    let stored = await store.v1Get(alice);
    assert.equal(stored?.created, 1_000);
    assert.equal(stored?.updated, 1_000);
    clock.at = 2_000;
    await v1.push(alice, copy('b'), first.hash);
    stored = await store.v1Get(alice);
    assert.deepEqual([stored?.created, stored?.updated], [1_000, 2_000]);
    clock.at = 3_000;
    await v1.reset(alice);
    stored = await store.v1Get(alice);
    assert.deepEqual([stored?.created, stored?.updated], [1_000, 3_000]);
  });

  test('v1: a blob stored without dates keeps its creation unknown; the next write dates it', async () => {
    const store = new MemoryKeyknoxStore();
    const alice = { app: 'app', identity: 'alice' };
    const record = { meta: utf8('m'), value: utf8('v'), version: 1, hash: 'h', revision: 1 };
    assert.equal(await store.v1Put(alice, record, 0), true);
    await new KeyknoxV1(store, () => 5_000).push(alice, copy('b'), 'h');
    const stored = await store.v1Get(alice);
    assert.equal('created' in stored!, false);
    assert.equal(stored?.updated, 5_000);
  });

  test('v2: created at the push onto nothing, updated at each push and reader removed; a deleted entry pushed again is new', async () => {
    const store = new MemoryKeyknoxStore();
    const clock = clockAt(10);
    const v2 = new KeyknoxV2(store, clock.now);
    const at = { root: 'r', path: 'p', key: 'k' };
    const address = { app: 'app', owner: 'alice', ...at };
    const first = await v2.push(
      'app',
      'alice',
      { ...at, identities: ['bob'], ...copy('a') },
      undefined,
    );
    assert.equal('created' in first || 'updated' in first, false, 'no date on the wire');
    let stored = await store.v2Get(address);
    assert.deepEqual([stored?.created, stored?.updated], [10, 10]);
    clock.at = 20;
    const second = await v2.push(
      'app',
      'alice',
      { ...at, identities: ['carol'], ...copy('b') },
      first.hash,
    );
    clock.at = 30;
    await v2.reset('app', 'alice', { ...at, identity: 'bob' });
    stored = await store.v2Get(address);
    assert.deepEqual([stored?.created, stored?.updated], [10, 30]);
    assert.equal(stored?.hash, second.hash);
    clock.at = 40;
    await v2.reset('app', 'alice', at);
    await v2.push('app', 'alice', { ...at, identities: [], ...copy('c') }, undefined);
    stored = await store.v2Get(address);
    assert.deepEqual([stored?.created, stored?.updated], [40, 40]);
  });

  test('dump lines carry the dates; a line without them (written before records had dates) reads and writes back as it was', () => {
    const undated = {
      keyknox1: {
        app: 'a',
        identity: 'i',
        meta: '',
        value: 'dg==',
        version: 1,
        hash: 'h',
        revision: 1,
      },
    };
    const read = readKeyknoxLine(undated, 'line 1');
    assert.equal(read.kind, 'keyknox1');
    if (read.kind !== 'keyknox1') return;
    assert.equal('created' in read.record || 'updated' in read.record, false);
    assert.equal(keyknox1Line(read.address, read.record), JSON.stringify(undated));
    const dated = { keyknox1: { ...undated.keyknox1, created: 1, updated: 1_764_000_000_123 } };
    const again = readKeyknoxLine(dated, 'line 1');
    if (again.kind !== 'keyknox1') return assert.fail('not a v1 line');
    assert.deepEqual([again.record.created, again.record.updated], [1, 1_764_000_000_123]);
    assert.equal(keyknox1Line(again.address, again.record), JSON.stringify(dated));
    const v2 = {
      keyknox2: {
        ...{ app: 'a', owner: 'o', root: 'r', path: 'p', key: 'k' },
        copies: [{ meta: '', value: '' }],
        readers: [],
        hash: 'h',
        revision: 2,
        updated: 7,
      },
    };
    const entry = readKeyknoxLine(v2, 'line 2');
    if (entry.kind !== 'keyknox2') return assert.fail('not a v2 line');
    assert.equal(entry.entry.updated, 7);
    assert.equal(keyknox2Line(entry.entry), JSON.stringify(v2));
    for (const bad of [-1, 1.5, '7', null])
      assert.throws(
        () => readKeyknoxLine({ keyknox1: { ...undated.keyknox1, created: bad } }, 'line 3'),
        /line 3: "created" is not an integer from 0/,
      );
  });
});
