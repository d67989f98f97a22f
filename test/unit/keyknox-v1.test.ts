// Keyknox v1 rules (src/registry/keyknox-v1.ts) over the in-memory store: one test per rule
// of the e3kit backend facts, section 2 ("v1 rule N" in each name), plus input and races.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { decodeBase64, utf8 } from '../../src/core/encoding.js';
import { CardsError, WIRE_ERRORS, type ErrorCode } from '../../src/core/errors.js';
import { ABSENT_HASH } from '../../src/registry/keyknox-common.js';
import { parsePreviousHash, parseV1Push } from '../../src/registry/keyknox-input.js';
import { KeyknoxV1 } from '../../src/registry/keyknox-v1.js';
import { MemoryKeyknoxStore } from '../../src/store/memory/keyknox-store.js';
import { refusalCode } from '../helpers/refusal.js';

const alice = { app: 'app', identity: 'alice' };
const copy = (text: string) => ({ meta: utf8(`meta ${text}`), value: utf8(`value ${text}`) });
const text = (b: Uint8Array): string => Buffer.from(b).toString('utf8');

const fresh = () => new KeyknoxV1(new MemoryKeyknoxStore());

describe('Keyknox v1', () => {
  test('v1 rule 1: nothing stored pulls as 200 with empty meta and value, version "1.0"', async () => {
    const answer = await fresh().pull(alice);
    assert.deepEqual(answer, {
      meta: new Uint8Array(0),
      value: new Uint8Array(0),
      version: '1.0',
      hash: ABSENT_HASH,
    });
  });

  const versions: [string, string[], string][] = [
    ['push', ['push'], '1.0'],
    ['push, push', ['push', 'push'], '2.0'],
    ['push, reset', ['push', 'reset'], '2.0'],
    ['reset with nothing stored', ['reset'], '1.0'],
    ['reset, reset with nothing stored', ['reset', 'reset'], '1.0'],
    ['push, reset, reset', ['push', 'reset', 'reset'], '3.0'],
    ['push, reset, push', ['push', 'reset', 'push'], '3.0'],
  ];
  for (const [name, ops, expected] of versions) {
    test(`v1 rule 2: ${name} → version "${expected}", answered and pulled`, async () => {
      const v1 = fresh();
      let last = await v1.pull(alice);
      for (const op of ops)
        last = op === 'push' ? await v1.push(alice, copy(op), last.hash) : await v1.reset(alice);
      assert.equal(last.version, expected);
      assert.equal((await v1.pull(alice)).version, expected);
    });
  }

  test('v1 rule 2: a reset of nothing stores nothing', async () => {
    const v1 = fresh();
    await v1.reset(alice);
    assert.equal((await v1.pull(alice)).hash, ABSENT_HASH);
    assert.equal((await v1.push(alice, copy('a'), undefined)).version, '1.0');
  });

  test('v1 rule 3: pull returns exactly the hash the last push or reset returned; base64; new at each write', async () => {
    const v1 = fresh();
    const hashes = new Set([ABSENT_HASH]);
    let last = await v1.pull(alice);
    for (const op of ['push', 'push', 'reset', 'push']) {
      last =
        op === 'push'
          ? await v1.push(alice, copy('same content'), last.hash)
          : await v1.reset(alice);
      assert.equal((await v1.pull(alice)).hash, last.hash);
      assert.ok(decodeBase64(last.hash)?.byteLength, 'base64');
      assert.ok(!hashes.has(last.hash), `${op} gave a new hash`);
      hashes.add(last.hash);
    }
  });

  const conflicts: [string, (v1: KeyknoxV1) => Promise<string | undefined>, boolean][] = [
    [
      'a hash that is not the current one',
      async (v1) => (await v1.push(alice, copy('a'), undefined)) && 'bm90IGl0',
      true,
    ],
    [
      'no hash while a blob is stored',
      async (v1) => void (await v1.push(alice, copy('a'), undefined)),
      true,
    ],
    [
      'a hash from before the last push',
      async (v1) => {
        const first = await v1.push(alice, copy('a'), undefined);
        await v1.push(alice, copy('b'), first.hash);
        return first.hash;
      },
      true,
    ],
    [
      'a hash from before a reset',
      async (v1) => {
        const first = await v1.push(alice, copy('a'), undefined);
        await v1.reset(alice);
        return first.hash;
      },
      true,
    ],
    [
      'the absent hash onto a stored blob',
      async (v1) => (await v1.push(alice, copy('a'), undefined)) && ABSENT_HASH,
      true,
    ],
    ['no hash onto nothing stored', () => Promise.resolve(undefined), false],
    ['the absent hash onto nothing stored', () => Promise.resolve(ABSENT_HASH), false],
    [
      'no hash onto a reset blob',
      async (v1) => {
        await v1.push(alice, copy('a'), undefined);
        await v1.reset(alice);
        return undefined;
      },
      false,
    ],
    [
      'the reset blob’s hash',
      async (v1) => {
        await v1.push(alice, copy('a'), undefined);
        return (await v1.reset(alice)).hash;
      },
      false,
    ],
    ['the current hash', async (v1) => (await v1.push(alice, copy('a'), undefined)).hash, false],
  ];
  for (const [name, setUp, conflict] of conflicts) {
    test(`v1 rule 4: a push with ${name} is ${conflict ? 'refused with 50010, changing nothing' : 'accepted'}`, async () => {
      const v1 = fresh();
      const previous = await setUp(v1);
      const before = await v1.pull(alice);
      const push = v1.push(alice, copy('new'), previous);
      if (!conflict) {
        assert.equal(text((await push).value), 'value new');
        return;
      }
      assert.equal(await refusalCode(push), 'KEYKNOX_CONFLICT');
      assert.deepEqual(await v1.pull(alice), before);
    });
  }

  test('v1 rule 4: the conflict is wire code 50010 with HTTP status 409', () => {
    assert.equal(WIRE_ERRORS.KEYKNOX_CONFLICT.wire, 50010);
    assert.equal(WIRE_ERRORS.KEYKNOX_CONFLICT.status, 409);
  });

  test('v1 rule 4: of two pushes racing from the same hash exactly one lands', async () => {
    const v1 = fresh();
    const start = await v1.push(alice, copy('start'), undefined);
    const results = await Promise.allSettled(
      ['x', 'y', 'z'].map((name) => v1.push(alice, copy(name), start.hash)),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    assert.equal(won.length, 1);
    for (const r of results)
      if (r.status === 'rejected') assert.equal((r.reason as CardsError).code, 'KEYKNOX_CONFLICT');
    const pulled = await v1.pull(alice);
    assert.deepEqual(pulled, (won[0] as PromiseFulfilledResult<typeof pulled>).value);
    assert.equal(pulled.version, '2.0');
  });

  test('v1 rule 5: meta and value are stored and returned byte for byte, never interpreted', async () => {
    const v1 = fresh();
    const sent = {
      meta: new Uint8Array(randomBytes(700)),
      value: new Uint8Array(randomBytes(26_000)),
    };
    const pushed = await v1.push(alice, sent, undefined);
    const pulled = await v1.pull(alice);
    for (const a of [pushed, pulled]) {
      assert.deepEqual(a.meta, sent.meta);
      assert.deepEqual(a.value, sent.value);
    }
  });

  test('blobs are scoped by app and identity', async () => {
    const v1 = fresh();
    await v1.push(alice, copy('alice'), undefined);
    for (const other of [
      { app: 'app', identity: 'bob' },
      { app: 'other', identity: 'alice' },
    ]) {
      assert.equal((await v1.pull(other)).hash, ABSENT_HASH);
      await v1.push(other, copy('other'), undefined);
    }
    assert.equal(text((await v1.pull(alice)).value), 'value alice');
  });

  const bodies: [string, unknown, ErrorCode][] = [
    ['not an object', ['meta', 'value'], 'BODY_PARSE'],
    ['null', null, 'BODY_PARSE'],
    ['meta missing', { value: 'dmFsdWU=' }, 'KEYKNOX_VALUE_INVALID'],
    ['value empty', { meta: 'bWV0YQ==', value: '' }, 'KEYKNOX_VALUE_INVALID'],
    ['value not base64', { meta: 'bWV0YQ==', value: 'dmFsdWU' }, 'KEYKNOX_VALUE_INVALID'],
    ['meta a number', { meta: 1, value: 'dmFsdWU=' }, 'KEYKNOX_VALUE_INVALID'],
  ];
  for (const [name, body, code] of bodies) {
    test(`a v1 push body with ${name} is refused: ${code}`, () => {
      assert.throws(
        () => parseV1Push(body),
        (e: unknown) => e instanceof CardsError && e.code === code,
      );
    });
  }

  test('the previous-hash header: absent or empty names none', () => {
    assert.equal(parsePreviousHash(undefined), undefined);
    assert.equal(parsePreviousHash(''), undefined);
    assert.equal(parsePreviousHash('aGFzaA=='), 'aGFzaA==');
    assert.deepEqual(parseV1Push({ meta: 'bWV0YQ==', value: 'dmFsdWU=' }), {
      meta: utf8('meta'),
      value: utf8('value'),
    });
  });
});
