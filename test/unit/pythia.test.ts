// The server's Pythia computation (src/crypto/pythia.ts run on the worker pool of
// src/pythia/pool.ts), checked by the vendor's own client side of the protocol
// (@virgilsecurity/pythia-crypto: blind, deblind, verify, updateDeblindedWithToken), as
// virgil-pythia's BrainKey and Pythia classes call it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { decodeBase64 } from '../../src/core/encoding.js';
import { CardsError } from '../../src/core/errors.js';
import {
  BRAINKEY_ID_MAX_BYTES,
  PYTHIA_SIZES,
  brainkeyTweak,
  derivePythiaKeys,
  type PythiaKeys,
} from '../../src/crypto/pythia.js';
import { runPythiaJob } from '../../src/pythia/jobs.js';
import { loadPythia, type VendorPythia } from '../../src/pythia/load.js';
import { PythiaPool } from '../../src/pythia/pool.js';
import { refusalCode } from '../helpers/refusal.js';

const SECRET = new Uint8Array(32).map((_, i) => i + 1);
let pool: PythiaPool;
let client: VendorPythia;
let keys: PythiaKeys;

before(async () => {
  pool = await PythiaPool.open({ threads: 2 });
  client = await loadPythia();
  keys = await pool.keys(SECRET, 3);
});
after(() => pool.close());

const equal = (a: Uint8Array, b: Uint8Array): boolean => Buffer.from(a).equals(Buffer.from(b));

/** What virgil-pythia's BrainKey does with the server's seed: blind, ask, deblind. */
async function brainkey(password: string, app: string, identity: string, id?: string) {
  const { blindedPassword, blindingSecret } = client.blind(password);
  const seed = await pool.brainkey(
    keys.brainkey,
    blindedPassword,
    brainkeyTweak(app, identity, id),
  );
  assert.equal(seed.byteLength, PYTHIA_SIZES.gt);
  return client.deblind({ transformedPassword: seed, blindingSecret });
}

describe('brainkey', () => {
  test('the same password, app, identity and id give the same deblinded seed; any other input another', async () => {
    const first = await brainkey('password1', 'app', 'alice');
    const again = await brainkey('password1', 'app', 'alice');
    assert.ok(equal(first, again), 'blinding is random, the deblinded seed is not');
    const others = [
      await brainkey('password2', 'app', 'alice'),
      await brainkey('password1', 'app', 'bob'),
      await brainkey('password1', 'other-app', 'alice'),
      await brainkey('password1', 'app', 'alice', 'id'),
    ];
    for (const other of others) assert.ok(!equal(first, other));
    assert.ok(
      equal(await brainkey('pw', 'app', 'alice', 'id'), await brainkey('pw', 'app', 'alice', 'id')),
    );
  });

  test('the tweak separates its parts: moving bytes between app, identity and id changes it', () => {
    const tweaks = [
      brainkeyTweak('ab', 'c'),
      brainkeyTweak('a', 'bc'),
      brainkeyTweak('a', 'b', 'c'),
      brainkeyTweak('a', 'bc', ''),
    ].map((t) => Buffer.from(t).toString('hex'));
    assert.equal(tweaks[1], tweaks[3], 'no brainkey_id is the empty one');
    assert.equal(new Set(tweaks).size, 3);
  });

  test('a brainkey_id longer than the limit is refused', () => {
    const code = (id: string): string | undefined => {
      try {
        brainkeyTweak('app', 'alice', id);
        return undefined;
      } catch (err) {
        return err instanceof CardsError ? err.code : String(err);
      }
    };
    assert.equal(code('é'.repeat(BRAINKEY_ID_MAX_BYTES / 2)), undefined);
    assert.equal(code('é'.repeat(BRAINKEY_ID_MAX_BYTES / 2) + 'x'), 'PYTHIA_BRAINKEY_ID_INVALID');
  });
});

describe('keys', () => {
  test('the same secret gives the same keys in another thread and another instance', async () => {
    const here = runPythiaJob(client, { op: 'keys', secret: SECRET, versions: 3 });
    assert.ok('ok' in here);
    const local = here.ok as PythiaKeys;
    assert.deepEqual(local.proofKeys, keys.proofKeys);
    assert.deepEqual(local.updateTokens, keys.updateTokens);
    assert.ok(equal(local.brainkey.privateKey, keys.brainkey.privateKey));
    const other = derivePythiaKeys(client, new Uint8Array(32).fill(7), 3);
    for (let v = 0; v < 3; v++) assert.notEqual(other.proofKeys[v], keys.proofKeys[v]);
  });

  test('proof keys print as PK.<version>.<base64 G1 point>, update tokens as UT.<a>.<a+1>.<base64>', () => {
    assert.equal(keys.proofKeys.length, 3);
    assert.equal(keys.updateTokens.length, 2);
    keys.proofKeys.forEach((pk, i) => {
      const [tag, version, b64, ...rest] = pk.split('.');
      assert.deepEqual([tag, version, rest.length], ['PK', String(i + 1), 0]);
      assert.ok(equal(decodeBase64(b64!)!, keys.passwords[i]!.publicKey));
      assert.equal(keys.passwords[i]!.publicKey.byteLength, PYTHIA_SIZES.g1);
    });
    keys.updateTokens.forEach((ut, i) => {
      const [tag, from, to, b64, ...rest] = ut.split('.');
      assert.deepEqual([tag, from, to, rest.length], ['UT', String(i + 1), String(i + 2), 0]);
      assert.equal(decodeBase64(b64!)!.byteLength, PYTHIA_SIZES.bigNumber);
    });
    const brainkeyPublic = Buffer.from(keys.brainkey.publicKey).toString('base64');
    assert.ok(!keys.proofKeys.some((pk) => pk.endsWith(brainkeyPublic)), 'brainkey key is its own');
  });
});

describe('password', () => {
  const salt = new Uint8Array(32).fill(5);

  test('the proof of each version verifies with that version’s proof key only', async () => {
    const { blindedPassword } = client.blind('password');
    for (const v of [1, 2, 3]) {
      const r = await pool.password(keys.passwords[v - 1]!, blindedPassword, salt, true);
      assert.ok(r.proof);
      for (const w of [1, 2, 3]) {
        const verified = client.verify({
          transformedPassword: r.transformedPassword,
          blindedPassword,
          tweak: salt,
          transformationPublicKey: keys.passwords[w - 1]!.publicKey,
          proofValueC: r.proof.c,
          proofValueU: r.proof.u,
        });
        assert.equal(verified, v === w, `proof of version ${v} against key ${w}`);
      }
      const other = client.verify({
        transformedPassword: r.transformedPassword,
        blindedPassword,
        tweak: new Uint8Array(32).fill(6),
        transformationPublicKey: keys.passwords[v - 1]!.publicKey,
        proofValueC: r.proof.c,
        proofValueU: r.proof.u,
      });
      assert.equal(other, false, 'the proof binds the salt');
    }
    const bare = await pool.password(keys.passwords[0]!, blindedPassword, salt, false);
    assert.equal(bare.proof, undefined);
  });

  test('an update token moves a version-1 password to exactly what version 2 gives', async () => {
    const deblinded = async (v: number): Promise<Uint8Array> => {
      const { blindedPassword, blindingSecret } = client.blind('password');
      const r = await pool.password(keys.passwords[v - 1]!, blindedPassword, salt, false);
      return client.deblind({ transformedPassword: r.transformedPassword, blindingSecret });
    };
    const v1 = await deblinded(1);
    const v2 = await deblinded(2);
    assert.ok(!equal(v1, v2));
    for (const [i, ut] of keys.updateTokens.entries()) {
      const token = decodeBase64(ut.split('.')[3]!)!;
      const from = i === 0 ? v1 : v2;
      const moved = client.updateDeblindedWithToken({
        deblindedPassword: from,
        updateToken: token,
      });
      const target = i === 0 ? v2 : await deblinded(3);
      assert.ok(equal(moved, target), ut.slice(0, 6));
    }
  });

  test('bad input is refused with its code, and the pool answers after it', async () => {
    const { blindedPassword } = client.blind('password');
    const key = keys.passwords[0]!;
    assert.equal(
      await refusalCode(pool.password(key, blindedPassword.subarray(1), salt, true)),
      'PYTHIA_PASSWORD_INVALID',
    );
    assert.equal(
      await refusalCode(pool.password(key, new Uint8Array(49), salt, true)),
      'PYTHIA_PASSWORD_INVALID',
    );
    assert.equal(
      await refusalCode(pool.password(key, new Uint8Array(49).fill(0xff), salt, true)),
      'PYTHIA_PASSWORD_INVALID',
    );
    assert.equal(
      await refusalCode(pool.brainkey(keys.brainkey, new Uint8Array(48), salt)),
      'PYTHIA_PASSWORD_INVALID',
    );
    assert.equal(
      await refusalCode(pool.password(key, blindedPassword, new Uint8Array(0), true)),
      'PYTHIA_SALT_INVALID',
    );
    assert.equal(
      await refusalCode(pool.password(key, blindedPassword, new Uint8Array(129), true)),
      'PYTHIA_SALT_INVALID',
    );
    const longest = await pool.password(key, blindedPassword, new Uint8Array(128).fill(1), true);
    assert.equal(longest.transformedPassword.byteLength, PYTHIA_SIZES.gt);
  });
});
