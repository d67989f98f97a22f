// Keyknox v2 rules (src/registry/keyknox-v2.ts) over the in-memory store: one test or table per
// rule of the e3kit backend facts, section 3 ("v2 rule N" in each name), plus input and races.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { utf8 } from '../../src/core/encoding.js';
import { CardsError, type ErrorCode } from '../../src/core/errors.js';
import { LIMITS } from '../../src/core/limits.js';
import { ABSENT_HASH } from '../../src/registry/keyknox-common.js';
import {
  parseV2Keys,
  parseV2Pull,
  parseV2Push,
  parseV2Reset,
} from '../../src/registry/keyknox-input.js';
import { KeyknoxV2 } from '../../src/registry/keyknox-v2.js';
import { MemoryKeyknoxStore } from '../../src/store/memory/keyknox-store.js';
import { refusalCode } from '../helpers/refusal.js';

const APP = 'app';
const at = { root: 'group-sessions', path: 'session-1', key: '0' };
const text = (b: Uint8Array): string => Buffer.from(b).toString('utf8');
const push = (identities: string[], content: string, where = at) => ({
  ...where,
  identities,
  meta: utf8(`meta ${content}`),
  value: utf8(content),
});

const fresh = () => new KeyknoxV2(new MemoryKeyknoxStore());

describe('Keyknox v2', () => {
  test('v2 rule 1: the owner is the caller; pull and keys read the caller’s entries unless identity names another owner', async () => {
    const v2 = fresh();
    const pushed = await v2.push(APP, 'alice', push(['alice', 'bob'], 'ticket'), undefined);
    assert.equal(pushed.owner, 'alice');
    assert.equal(text((await v2.pull(APP, 'alice', at)).value), 'ticket');
    // bob's own entry at the same address is another entry
    assert.equal((await v2.pull(APP, 'bob', at)).hash, ABSENT_HASH);
    const bobReads = await v2.pull(APP, 'bob', { ...at, identity: 'alice' });
    assert.equal(bobReads.owner, 'alice');
    assert.equal(text(bobReads.value), 'ticket');
    assert.deepEqual(
      await v2.keys(APP, 'bob', { root: at.root, path: at.path, identity: 'alice' }),
      ['0'],
    );
    assert.deepEqual(await v2.keys(APP, 'bob', { root: at.root, path: at.path }), []);
    // another app's alice is another owner
    assert.equal((await v2.pull('other', 'alice', at)).hash, ABSENT_HASH);
  });

  test('v2 rule 2: only the owner and named readers read; keys lists only those; others get the absent answer', async () => {
    const v2 = fresh();
    await v2.push(APP, 'alice', push(['alice', 'bob'], 'one', { ...at, key: '1' }), undefined);
    await v2.push(APP, 'alice', push(['alice'], 'two', { ...at, key: '2' }), undefined);
    const readable: [string, string[]][] = [
      ['alice', ['1', '2']],
      ['bob', ['1']],
      ['carol', []],
    ];
    for (const [caller, keys] of readable) {
      assert.deepEqual(
        await v2.keys(APP, caller, { root: at.root, path: at.path, identity: 'alice' }),
        keys,
        caller,
      );
    }
    const carol = await v2.pull(APP, 'carol', { ...at, key: '1', identity: 'alice' });
    assert.deepEqual(
      carol,
      await v2
        .pull(APP, 'carol', { ...at, key: 'never', identity: 'alice' })
        .then((a) => ({ ...a, key: '1' })),
    );
    assert.equal(carol.value.byteLength, 0);
    const bobOnTwo = await v2.pull(APP, 'bob', { ...at, key: '2', identity: 'alice' });
    assert.equal(bobOnTwo.hash, ABSENT_HASH);
  });

  test('v2 rule 3: an absent entry pulls as 200 with the address asked, no readers, empty content; keys []; reset succeeds', async () => {
    const v2 = fresh();
    assert.deepEqual(await v2.pull(APP, 'alice', { ...at, identity: 'bob' }), {
      owner: 'bob',
      ...at,
      identities: [],
      meta: new Uint8Array(0),
      value: new Uint8Array(0),
      hash: ABSENT_HASH,
    });
    assert.deepEqual(await v2.keys(APP, 'alice', { root: at.root, path: at.path }), []);
    const reset = await v2.reset(APP, 'alice', { root: at.root, path: 'never' });
    assert.equal(reset.hash, ABSENT_HASH);
    assert.equal(reset.path, 'never');
  });

  test('v2 rule 4: a push adds its readers to the set, never removes one; repeats count once', async () => {
    const v2 = fresh();
    const steps: [string[], string[]][] = [
      [
        ['alice', 'alice', 'bob'],
        ['alice', 'bob'],
      ],
      [['carol'], ['alice', 'bob', 'carol']],
      [
        ['bob', 'dave'],
        ['alice', 'bob', 'carol', 'dave'],
      ],
      [[], ['alice', 'bob', 'carol', 'dave']],
    ];
    let hash: string | undefined;
    for (const [named, expected] of steps) {
      const answer = await v2.push(APP, 'alice', push(named, named.join()), hash);
      assert.deepEqual(answer.identities, expected);
      assert.deepEqual(
        (await v2.pull(APP, 'bob', { ...at, identity: 'alice' })).identities,
        expected,
      );
      hash = answer.hash;
    }
  });

  test('v2 rule 5: each reader keeps the copy of the last push that named it; the owner reads the last push', async () => {
    const v2 = fresh();
    let hash = (await v2.push(APP, 'alice', push(['alice', 'bob'], 'for bob'), undefined)).hash;
    hash = (await v2.push(APP, 'alice', push(['carol'], 'for carol'), hash)).hash;
    hash = (await v2.push(APP, 'alice', push(['dave', 'carol'], 'for dave and carol'), hash)).hash;
    const expected: [string, string][] = [
      ['alice', 'for dave and carol'],
      ['bob', 'for bob'],
      ['carol', 'for dave and carol'],
      ['dave', 'for dave and carol'],
    ];
    for (const [reader, content] of expected) {
      const pulled = await v2.pull(APP, reader, { ...at, identity: 'alice' });
      assert.equal(text(pulled.value), content, reader);
      assert.equal(text(pulled.meta), `meta ${content}`, reader);
      assert.deepEqual(pulled.identities, ['alice', 'bob', 'carol', 'dave']);
      assert.equal(pulled.hash, hash);
    }
  });

  const conflicts: [string, (v2: KeyknoxV2) => Promise<string | undefined>, boolean][] = [
    [
      'no hash onto an existing entry',
      async (v2) => void (await v2.push(APP, 'alice', push(['alice'], 'a'), undefined)),
      true,
    ],
    [
      'a hash that is not the current one',
      async (v2) => (await v2.push(APP, 'alice', push(['alice'], 'a'), undefined)) && ABSENT_HASH,
      true,
    ],
    [
      'a hash from before the last push',
      async (v2) => {
        const first = await v2.push(APP, 'alice', push(['alice'], 'a'), undefined);
        await v2.push(APP, 'alice', push(['alice'], 'b'), first.hash);
        return first.hash;
      },
      true,
    ],
    ['no hash onto an absent entry', () => Promise.resolve(undefined), false],
    ['the absent hash onto an absent entry', () => Promise.resolve(ABSENT_HASH), false],
    [
      'no hash onto a deleted entry',
      async (v2) => {
        await v2.push(APP, 'alice', push(['alice'], 'a'), undefined);
        await v2.reset(APP, 'alice', { root: at.root });
        return undefined;
      },
      false,
    ],
    [
      'the current hash',
      async (v2) => (await v2.push(APP, 'alice', push(['alice'], 'a'), undefined)).hash,
      false,
    ],
  ];
  for (const [name, setUp, conflict] of conflicts) {
    test(`v2 rule 6: a push with ${name} is ${conflict ? 'refused with 50010, changing nothing' : 'accepted'}`, async () => {
      const v2 = fresh();
      const previous = await setUp(v2);
      const before = await v2.pull(APP, 'alice', at);
      const pushing = v2.push(APP, 'alice', push(['alice', 'bob'], 'new'), previous);
      if (!conflict) {
        assert.equal(text((await pushing).value), 'new');
        return;
      }
      assert.equal(await refusalCode(pushing), 'KEYKNOX_CONFLICT');
      assert.deepEqual(await v2.pull(APP, 'alice', at), before);
    });
  }

  test('v2 rule 6: of pushes racing onto one absent entry exactly one lands', async () => {
    const v2 = fresh();
    const results = await Promise.allSettled(
      ['x', 'y', 'z'].map((c) => v2.push(APP, 'alice', push(['alice'], c), undefined)),
    );
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    for (const r of results)
      if (r.status === 'rejected') assert.equal((r.reason as CardsError).code, 'KEYKNOX_CONFLICT');
  });

  const deletes: [string, Parameters<KeyknoxV2['reset']>[2], string[]][] = [
    ['no filter', {}, []],
    ['a root', { root: at.root }, ['e3kit/backup/key']],
    [
      'a root and path',
      { root: at.root, path: 'session-1' },
      ['e3kit/backup/key', 'group-sessions/session-2/0'],
    ],
    [
      'root, path and key',
      { ...at, key: '1' },
      ['e3kit/backup/key', 'group-sessions/session-1/0', 'group-sessions/session-2/0'],
    ],
    [
      'the caller as identity',
      { root: 'e3kit', path: 'backup', key: 'key', identity: 'alice' },
      ['group-sessions/session-1/0', 'group-sessions/session-1/1', 'group-sessions/session-2/0'],
    ],
  ];
  for (const [name, request, left] of deletes) {
    test(`v2 rule 7: a reset with ${name} deletes the caller’s matching entries only`, async () => {
      const v2 = fresh();
      const addresses = [
        { root: 'e3kit', path: 'backup', key: 'key' },
        { ...at, key: '0' },
        { ...at, key: '1' },
        { ...at, path: 'session-2', key: '0' },
      ];
      for (const where of addresses) {
        await v2.push(APP, 'alice', push(['alice', 'bob'], 'x', where), undefined);
        await v2.push(APP, 'bob', push(['bob'], 'bob’s', where), undefined);
      }
      const reset = await v2.reset(APP, 'alice', request);
      assert.equal(reset.owner, 'alice');
      const remaining: string[] = [];
      for (const where of addresses) {
        if ((await v2.pull(APP, 'alice', where)).hash !== ABSENT_HASH)
          remaining.push(`${where.root}/${where.path}/${where.key}`);
        assert.equal(text((await v2.pull(APP, 'bob', where)).value), 'bob’s', 'bob’s entries stay');
      }
      assert.deepEqual(remaining, left);
    });
  }

  test('v2 rule 7: a reset naming another identity removes that reader only, keeping content and hash', async () => {
    const v2 = fresh();
    const where = [
      { ...at, key: '0' },
      { ...at, key: '1' },
    ];
    const hashes = [];
    for (const w of where)
      hashes.push(
        (await v2.push(APP, 'alice', push(['alice', 'bob', 'carol'], 'ticket', w), undefined)).hash,
      );
    const answer = await v2.reset(APP, 'alice', { ...at, key: '0', identity: 'bob' });
    assert.deepEqual(answer.identities, ['alice', 'carol']);
    assert.equal(answer.hash, hashes[0]);
    const alicePull = await v2.pull(APP, 'alice', where[0]!);
    assert.equal(alicePull.hash, hashes[0]);
    assert.equal(text(alicePull.value), 'ticket');
    assert.equal(
      (await v2.pull(APP, 'bob', { ...where[0]!, identity: 'alice' })).hash,
      ABSENT_HASH,
    );
    assert.equal(
      text((await v2.pull(APP, 'bob', { ...where[1]!, identity: 'alice' })).value),
      'ticket',
    );
    assert.deepEqual(
      await v2.keys(APP, 'bob', { root: at.root, path: at.path, identity: 'alice' }),
      ['1'],
    );
    // without a key: every epoch of the session
    await v2.reset(APP, 'alice', { root: at.root, path: at.path, identity: 'bob' });
    assert.deepEqual(
      await v2.keys(APP, 'bob', { root: at.root, path: at.path, identity: 'alice' }),
      [],
    );
    assert.deepEqual(
      await v2.keys(APP, 'carol', { root: at.root, path: at.path, identity: 'alice' }),
      ['0', '1'],
    );
  });

  test('v2 rule 7: re-adding a reader (pull, remove, push with the hash pulled before) is accepted and gives it the new copy', async () => {
    const v2 = fresh();
    await v2.push(APP, 'alice', push(['alice', 'bob'], 'old'), undefined);
    const pulled = await v2.pull(APP, 'alice', at);
    await v2.reset(APP, 'alice', { ...at, identity: 'bob' });
    const pushed = await v2.push(APP, 'alice', push(['bob'], 'new for bob'), pulled.hash);
    assert.deepEqual(pushed.identities, ['alice', 'bob']);
    assert.equal(
      text((await v2.pull(APP, 'bob', { ...at, identity: 'alice' })).value),
      'new for bob',
    );
  });

  test('v2 rule 8: the hash changes on every push, the same content too', async () => {
    const v2 = fresh();
    const seen = new Set([ABSENT_HASH]);
    let hash: string | undefined;
    for (let i = 0; i < 4; i++) {
      hash = (await v2.push(APP, 'alice', push(['alice'], 'same'), hash)).hash;
      assert.ok(!seen.has(hash));
      seen.add(hash);
    }
  });

  test('an entry has at most the reader limit, over all its pushes', async () => {
    const v2 = fresh();
    const many = (from: number, n: number) => Array.from({ length: n }, (_, i) => `id-${from + i}`);
    const first = await v2.push(
      APP,
      'alice',
      push(many(0, LIMITS.keyknoxReadersMax - 1), 'a'),
      undefined,
    );
    const ok = await v2.push(
      APP,
      'alice',
      push(many(LIMITS.keyknoxReadersMax - 1, 1), 'b'),
      first.hash,
    );
    assert.equal(ok.identities.length, LIMITS.keyknoxReadersMax);
    assert.equal(
      await refusalCode(v2.push(APP, 'alice', push(['one-more'], 'c'), ok.hash)),
      'KEYKNOX_IDENTITIES_INVALID',
    );
  });

  const long = 'x'.repeat(1025);
  const b64 = 'dmFsdWU=';
  const bodies: [string, (b: unknown) => unknown, unknown, ErrorCode][] = [
    ['push: not an object', parseV2Push, 'x', 'BODY_PARSE'],
    [
      'push: root missing',
      parseV2Push,
      { path: 'p', key: 'k', identities: [], meta: b64, value: b64 },
      'KEYKNOX_ADDRESS_INVALID',
    ],
    [
      'push: key empty',
      parseV2Push,
      { root: 'r', path: 'p', key: '', identities: [], meta: b64, value: b64 },
      'KEYKNOX_ADDRESS_INVALID',
    ],
    [
      'push: path too long',
      parseV2Push,
      { root: 'r', path: long, key: 'k', identities: [], meta: b64, value: b64 },
      'KEYKNOX_ADDRESS_INVALID',
    ],
    [
      'push: identities not a list',
      parseV2Push,
      { ...at, identities: 'bob', meta: b64, value: b64 },
      'KEYKNOX_IDENTITIES_INVALID',
    ],
    [
      'push: an identity empty',
      parseV2Push,
      { ...at, identities: ['bob', ''], meta: b64, value: b64 },
      'KEYKNOX_IDENTITIES_INVALID',
    ],
    [
      'push: too many identities',
      parseV2Push,
      { ...at, identities: Array(LIMITS.keyknoxReadersMax + 1).fill('a'), meta: b64, value: b64 },
      'KEYKNOX_IDENTITIES_INVALID',
    ],
    [
      'push: value empty',
      parseV2Push,
      { ...at, identities: [], meta: b64, value: '' },
      'KEYKNOX_VALUE_INVALID',
    ],
    ['pull: key missing', parseV2Pull, { root: 'r', path: 'p' }, 'KEYKNOX_ADDRESS_INVALID'],
    ['pull: identity a number', parseV2Pull, { ...at, identity: 7 }, 'KEYKNOX_ADDRESS_INVALID'],
    ['keys: path without root', parseV2Keys, { path: 'p' }, 'KEYKNOX_ADDRESS_INVALID'],
    ['reset: key without path', parseV2Reset, { root: 'r', key: 'k' }, 'KEYKNOX_ADDRESS_INVALID'],
    ['reset: an array', parseV2Reset, [], 'BODY_PARSE'],
  ];
  for (const [name, parse, body, code] of bodies) {
    test(`a v2 ${name} is refused: ${code}`, () => {
      assert.throws(
        () => parse(body),
        (e: unknown) => e instanceof CardsError && e.code === code,
      );
    });
  }

  test('v2 requests: optional parts absent, null or empty are not given; repeated readers count once', () => {
    assert.deepEqual(parseV2Keys({ root: 'r', path: null, identity: '' }), { root: 'r' });
    assert.deepEqual(parseV2Reset({}), {});
    assert.deepEqual(parseV2Pull({ ...at, identity: null }), at);
    assert.deepEqual(
      parseV2Push({ ...at, identities: ['a', 'b', 'a'], meta: b64, value: b64 }).identities,
      ['a', 'b'],
    );
  });
});
