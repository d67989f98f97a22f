/**
 * The files beside a store: a `--db` that names, or links to, one of its
 * own companions is refused before anything is touched; two stores of one stem in one folder
 * share nothing; a store made by an older version (companions named after the stem) keeps its
 * keys and its journal. `cards serve` in this process (a real port 0; refusals through the
 * executable's funnel), a `cards serve` process where it is killed (-9); temp dirs.
 */
import assert from 'node:assert/strict';
import {
  copyFileSync,
  existsSync,
  linkSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { makeCard } from '../http/card-kit.js';
import { call } from '../reliability/kit.js';
import { startInProcess } from '../helpers/in-process-server.js';
import { makeTempDir, removeTempDirs, runServeToExit, startServer } from '../helpers/server.js';

after(removeTempDirs);

/** Starts a server on `dir/cards.json`, stores one card, stops it; returns the card's id. */
async function storeWithOneCard(dir: string, db = join(dir, 'cards.json')): Promise<string> {
  const server = await startInProcess({ dir, args: ['--quiet', '--db', db] });
  try {
    const card = makeCard('alice');
    assert.equal((await call(server, 'POST', '/card/v5', { body: card.raw })).status, 201);
    await server.stop(); // rejects when closing fails
    return card.id;
  } finally {
    await server.dispose();
  }
}

const refuse = async (args: string[], dir: string): Promise<string> => {
  const result = await runServeToExit(['--port', '0', '--quiet', ...args], {
    cwd: dir,
    timeoutMs: 8000,
  });
  assert.equal(result.code, 2, `${args.join(' ')}: refused (${result.stderr})`);
  assert.match(result.stderr, /USAGE/);
  assert.doesNotMatch(result.stdout, /listening/);
  return result.stderr;
};

describe('cards serve: a store is never one of its own companions', () => {
  test('--db x.journal, data.lock and other companion endings are refused, the file untouched', async () => {
    const dir = makeTempDir();
    await storeWithOneCard(dir);
    const store = readFileSync(join(dir, 'cards.json'));
    for (const name of ['x.journal', 'data.lock', 'cards.service-key.pem', 'c.app-key.pem']) {
      copyFileSync(join(dir, 'cards.json'), join(dir, name));
      const before = readdirSync(dir).sort();
      const said = await refuse(['--db', join(dir, name)], dir);
      assert.match(said, new RegExp(name.replace('.', '\\.')));
      assert.deepEqual(readFileSync(join(dir, name)), store, `${name}: untouched`);
      assert.deepEqual(readdirSync(dir).sort(), before, `${name}: nothing made or removed`);
    }
    // A new store of such a name is refused too, and nothing is made.
    const empty = makeTempDir();
    await refuse(['--db', join(empty, 'new.journal')], empty);
    assert.deepEqual(readdirSync(empty), []);
  });

  test('a companion that is a symbolic or hard link to the store is refused', async () => {
    for (const [companion, link] of [
      ['cards.json.journal', symlinkSync],
      ['cards.json.lock', linkSync],
      ['cards.json.app-key.pem', symlinkSync],
    ] as const) {
      const dir = makeTempDir();
      await storeWithOneCard(dir);
      renameSync(join(dir, 'cards.json.app-key.pem'), join(dir, 'app.pem'));
      const store = readFileSync(join(dir, 'cards.json'));
      link(join(dir, 'cards.json'), join(dir, companion));
      const said = await refuse(['--db', join(dir, 'cards.json')], dir);
      assert.match(said, /link to the store/);
      assert.deepEqual(readFileSync(join(dir, 'cards.json')), store, `${companion}: untouched`);
    }
  });

  test('a.json and a.db in one folder share no journal, lock or key', async (t) => {
    const dir = makeTempDir();
    const a = await startInProcess({ dir, args: ['--quiet', '--db', join(dir, 'a.json')] });
    t.after(() => a.dispose());
    const b = await startInProcess({ dir, args: ['--quiet', '--db', join(dir, 'a.db')] });
    t.after(() => b.dispose());
    assert.notEqual(a.serviceKey, b.serviceKey, 'each store its own service key');
    for (const key of ['journal', 'lock', 'serviceKey', 'appKey'] as const)
      assert.notEqual(a.paths[key], b.paths[key], key);
    const card = makeCard('alice');
    assert.equal((await call(a, 'POST', '/card/v5', { body: card.raw })).status, 201);
    assert.equal((await call(b, 'GET', `/card/v5/${card.id}`)).status, 404);
    // Each closes as `cards serve` does on SIGTERM; stop rejects when closing fails.
    await a.stop();
    await b.stop();
    assert.ok(existsSync(join(dir, 'a.json')) && existsSync(join(dir, 'a.db')));
  });
});

describe('cards serve: a store made by an older version', () => {
  test('its stem-named keys and journal are found and kept; no new-style files appear', async (t) => {
    const dir = makeTempDir();
    const first = await storeWithOneCard(dir);
    const server = await startServer({ dir, args: ['--quiet'] });
    t.after(() => server.dispose());
    const serviceKey = server.serviceKey;
    const second = makeCard('alice');
    assert.equal((await call(server, 'POST', '/card/v5', { body: second.raw })).status, 201);
    await server.kill(); // the second card lives only in the journal
    // What an older version leaves: companions named after the stem, and no transparency log,
    // Keyknox file, Pythia secret or address file (the killed server's is left behind).
    for (const end of ['journal', 'lock', 'service-key.pem', 'app-key.pem', 'admin-token'])
      renameSync(join(dir, `cards.json.${end}`), join(dir, `cards.${end}`));
    for (const end of ['log', 'log-key.pem', 'log-signed', 'keyknox', 'pythia-secret', 'address'])
      rmSync(join(dir, `cards.json.${end}`), { recursive: true });
    const again = await startInProcess({ dir, args: ['--quiet'] });
    t.after(() => again.dispose());
    try {
      assert.equal(again.serviceKey, serviceKey, 'the old service key signs on');
      assert.equal(
        again.paths.appKey,
        join(dir, 'cards.app-key.pem'),
        'tokens from the old app key',
      );
      for (const id of [first, second.id])
        assert.equal((await call(again, 'GET', `/card/v5/${id}`)).status, 200, id);
      assert.deepEqual(
        readdirSync(dir).filter((name) => name.startsWith('cards.json.')),
        [],
        'no new-style companion beside an old store',
      );
    } finally {
      await again.stop(); // rejects when closing fails
    }
    assert.ok(!existsSync(join(dir, 'cards.journal')) && !existsSync(join(dir, 'cards.lock')));
  });
});
