/**
 * e3kit's backend end to end: `cards serve --compat virgil` on a real port (a process where
 * kill -9 and the printed banner are the point, helpers/server.ts; in-process otherwise),
 * stock VEDS512 tokens, the store of CARDS_TEST_ENGINE (JSON by default; e3kit-postgres.test.ts
 * runs this file on PostgreSQL). An acknowledged Keyknox push survives kill -9 and a restart,
 * and a brainkey is the same after a restart (the engine keeps the Pythia secret); data is
 * scoped by the token's app; the banner's proof keys are the ones /_cards/info gives.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { e3kitCall } from '../helpers/e3kit-call.js';
import { freshStoreUrl } from '../helpers/postgres.js';
import { startInProcess } from '../helpers/in-process-server.js';
import { removeTempDirs, startServer, type Served } from '../helpers/server.js';
import { blind } from './e3kit-kit.js';

after(removeTempDirs);

const b64 = (text: string): string => Buffer.from(text).toString('base64');
const call = e3kitCall;

const ARGS = ['--compat', 'virgil', '--quiet', '--no-log'];
/** A `cards serve` process: what kill -9 and the printed banner need. */
const start = () => startServer({ args: ARGS });

describe(`e3kit's backend over HTTP (${process.env.CARDS_TEST_ENGINE ?? 'json'})`, () => {
  test('a pushed backup survives kill -9 and restarts; a brainkey is the same after one', async (t) => {
    const server = await start();
    t.after(() => server.dispose());
    const { blinded, deblind } = await blind('correct horse');
    const brainkey = async (s: Served) => {
      const r = await call(s, 'POST', '/pythia/v1/brainkey', 'alice', {
        body: { blinded_password: blinded, brainkey_id: 'backup' },
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return deblind(r.body.seed!);
    };
    const seed = await brainkey(server);
    const pulled = await call(server, 'GET', '/keyknox/v1', 'alice');
    const pushed = await call(server, 'PUT', '/keyknox/v1', 'alice', {
      body: { meta: b64('meta'), value: b64('encrypted key') },
      headers: { 'virgil-keyknox-previous-hash': String(pulled.hash) },
    });
    assert.equal(pushed.status, 200);
    const v2 = await call(server, 'POST', '/keyknox/v2/push', 'alice', {
      body: {
        root: 'e3kit',
        path: 'backup',
        key: 'laptop',
        identities: ['alice'],
        meta: b64('m'),
        value: b64('v'),
      },
    });
    assert.equal(v2.status, 200);
    await server.kill(); // no clean-up: only what was acknowledged is on disk
    const again = await startInProcess({ dir: server.dir, args: ARGS });
    t.after(() => again.dispose());
    const restored = await call(again, 'GET', '/keyknox/v1', 'alice');
    assert.deepEqual(restored.body, {
      meta: b64('meta'),
      value: b64('encrypted key'),
      version: '1.0',
    });
    assert.equal(restored.hash, pushed.hash, 'the hash the client holds still names it');
    const entry = await call(again, 'POST', '/keyknox/v2/pull', 'alice', {
      body: { root: 'e3kit', path: 'backup', key: 'laptop' },
    });
    assert.equal(entry.body.value, b64('v'));
    assert.equal(await brainkey(again), seed, 'the kept Pythia secret gives the same brainkey');
    const changed = await call(again, 'PUT', '/keyknox/v1', 'alice', {
      body: { meta: b64('m2'), value: b64('v2') },
      headers: { 'virgil-keyknox-previous-hash': String(restored.hash) },
    });
    assert.equal(changed.body.version, '2.0');
    await assert.doesNotReject(again.stop());
    const third = await startInProcess({ dir: server.dir, args: ARGS });
    t.after(() => third.dispose());
    assert.equal((await call(third, 'GET', '/keyknox/v1', 'alice')).body.version, '2.0');
    // Closed before the first server's dispose removes the folder it folds its journal into.
    await assert.doesNotReject(third.stop());
  });

  test("data is scoped by the token's app; the banner's proof keys are /_cards/info's", async (t) => {
    const server = await start();
    t.after(() => server.dispose());
    await call(server, 'PUT', '/keyknox/v1', 'bob', { body: { meta: b64('m'), value: b64('v') } });
    const otherApp = await call(server, 'GET', '/keyknox/v1', 'bob', { app: 'another-app' });
    assert.equal(otherApp.body.value, '', 'another app sees nothing of this one');
    const own = await call(server, 'GET', '/keyknox/v1', 'bob');
    assert.equal(own.body.value, b64('v'));
    // The banner prints the Pythia lines once the threads have derived the keys.
    for (let i = 0; i < 200 && !/pythia proof key/.test(server.stdout()); i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const printed = [...server.stdout().matchAll(/pythia proof key: (PK\.\d+\.\S+)/g)].map(
      (m) => m[1],
    );
    const info = (await (await fetch(`${server.url}/_cards/info`)).json()) as {
      pythia: { proof_keys: string[] };
    };
    assert.deepEqual(info.pythia.proof_keys, printed);
    assert.equal(printed.length, 1);
    // cards reset (the admin reset) empties Keyknox with the cards.
    const reset = await fetch(`${server.url}/_cards/reset`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"confirm":"reset"}',
    });
    assert.equal(reset.status, 200);
    assert.equal((await call(server, 'GET', '/keyknox/v1', 'bob')).body.value, '');
    assert.match(printed[0]!, /^PK\.1\.[A-Za-z0-9+/]{66}==$/);
  });

  if (process.env.CARDS_TEST_ENGINE === 'postgres')
    test('two servers on one database: of two pushes from one hash exactly one wins', async (t) => {
      const store = await freshStoreUrl();
      const one = await startInProcess({ store, args: ARGS });
      t.after(() => one.dispose());
      const two = await startInProcess({ store, args: ARGS });
      t.after(() => two.dispose());
      for (let round = 0; round < 5; round++) {
        const identity = `racer-${round}`;
        const pulled = await call(one, 'GET', '/keyknox/v1', identity);
        const push = (s: Served, n: number) =>
          call(s, 'PUT', '/keyknox/v1', identity, {
            body: { meta: b64('m'), value: b64(`from ${n}`) },
            headers: { 'virgil-keyknox-previous-hash': String(pulled.hash) },
          });
        const results = await Promise.all([push(one, 1), push(two, 2), push(one, 3), push(two, 4)]);
        const won = results.filter((r) => r.status === 200);
        assert.equal(won.length, 1, JSON.stringify(results.map((r) => r.body)));
        for (const lost of results.filter((r) => r.status !== 200)) {
          assert.equal(lost.status, 409);
          assert.equal(lost.body.code, 50010);
        }
        const seen = [
          await call(one, 'GET', '/keyknox/v1', identity),
          await call(two, 'GET', '/keyknox/v1', identity),
        ];
        for (const s of seen) {
          assert.equal(s.hash, won[0]!.hash);
          assert.equal(s.body.value, won[0]!.body.value);
        }
      }
      // One Pythia secret in the database: both servers serve the same proof keys.
      const infos = await Promise.all(
        [one, two].map(
          async (s) =>
            (
              (await (await fetch(`${s.url}/_cards/info`)).json()) as {
                pythia: { proof_keys: string[] };
              }
            ).pythia.proof_keys,
        ),
      );
      assert.deepEqual(infos[0], infos[1]);
    });
});
