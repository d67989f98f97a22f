/**
 * Pythia's threads start on demand (src/server/on-demand.ts, pythia-setup.ts): a server nobody
 * asks for Pythia serves cards without loading the WebAssembly, and the first need of it (here
 * /_cards/info, which prints the proof keys) starts them once for every later need.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { ServeFlags } from '../../src/cli/commands/serve/settings.js';
import { serverOptions } from '../../src/cli/commands/serve/settings.js';
import { makeContext } from '../helpers/context.js';
import { silentLogger } from '../../src/http/request-log.js';
import { PythiaPool } from '../../src/pythia/pool.js';
import { OnDemand } from '../../src/server/on-demand.js';
import { startServing } from '../../src/server/start.js';
import { commandOptions } from '../cli/harness.js';
import { makeTempDir, removeTempDirs } from '../helpers/server.js';

after(removeTempDirs);

describe('OnDemand', () => {
  test('starts when first awaited, once, and a mapped one starts its source', async () => {
    let starts = 0;
    const source = new OnDemand(async () => ++starts);
    const doubled = source.map((n) => n * 2);
    assert.equal(starts, 0);
    assert.equal(source.started, false);
    assert.equal(doubled.started, false);
    assert.equal(await doubled, 2);
    assert.equal(source.started, true);
    assert.equal(doubled.started, true);
    assert.deepEqual(await Promise.all([source, source.then((n) => n + 1)]), [1, 2]);
    assert.equal(starts, 1);
  });

  test('a failure reaches every awaiter and starts nothing twice', async () => {
    let starts = 0;
    const failing = new OnDemand<number>(async () => {
      starts++;
      throw new Error('no threads');
    });
    await assert.rejects(failing, /no threads/);
    await assert.rejects(
      failing.map((n) => n + 1),
      /no threads/,
    );
    assert.equal(await failing.catch(() => 'caught'), 'caught');
    assert.equal(starts, 1);
  });
});

describe('a server and its Pythia threads', () => {
  test('a pool aborted while its threads load the WebAssembly rejects with the reason', async () => {
    const stopping = new AbortController();
    const opening = PythiaPool.open({ threads: 1, signal: stopping.signal });
    stopping.abort();
    await assert.rejects(opening, { name: 'AbortError' });
    await assert.rejects(PythiaPool.open({ threads: 1, signal: stopping.signal }), {
      name: 'AbortError',
    });
  });

  test('card routes run without them; /_cards/info starts them and prints the proof keys', async (t) => {
    const dir = makeTempDir();
    const ctx = makeContext({ cwd: dir, env: {} });
    const flags = await commandOptions<ServeFlags>(ctx, [
      'serve',
      '--memory',
      '--port',
      '0',
      '--host',
      '127.0.0.1',
    ]);
    const running = await startServing(serverOptions(ctx, flags, 'test'), silentLogger);
    t.after(() => running.close());
    const health = await fetch(`${running.url}/health`);
    assert.equal(health.status, 200);
    assert.equal(running.pythia.started, false, 'nobody asked for Pythia: no thread started');

    const info = (await (await fetch(`${running.url}/_cards/info`)).json()) as {
      pythia: { proof_keys: string[] };
    };
    assert.equal(running.pythia.started, true, '/_cards/info asked for the proof keys');
    assert.match(info.pythia.proof_keys[0] ?? '', /^PK\.1\./);
    assert.deepEqual((await running.pythia).proofKeys, info.pythia.proof_keys);
  });
});
