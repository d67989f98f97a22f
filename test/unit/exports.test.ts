/**
 * The package's entry points (package.json `exports`), imported by name as a user (or bench/)
 * does: each resolves and carries its layer, and `cards` is still core plus crypto.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

const load = (entry: string): Promise<Record<string, unknown>> =>
  import(entry) as Promise<Record<string, unknown>>;

test('cards/core, cards/crypto and cards/client resolve to their layers', async () => {
  const core = await load('cards/core');
  for (const name of ['CardsError', 'buildSnapshot', 'decodeSnapshot', 'cardIdOf', 'LIMITS'])
    assert.notEqual(core[name], undefined, `cards/core exports ${name}`);
  const crypto = await load('cards/crypto');
  for (const name of ['generatePrivateKey', 'signCard', 'verifyCardSignatures', 'mintToken'])
    assert.equal(typeof crypto[name], 'function', `cards/crypto exports ${name}`);
  assert.equal(crypto.mintJwtSync, undefined, 'one minter');
  const client = await load('cards/client');
  for (const name of ['CardsClient', 'mintingTokens', 'fixedToken', 'createTransport'])
    assert.equal(typeof client[name], 'function', `cards/client exports ${name}`);
});

test('cards (the main entry) is core and crypto together, the same bindings', async () => {
  const [main, core, crypto] = await Promise.all([
    load('cards'),
    load('cards/core'),
    load('cards/crypto'),
  ]);
  assert.deepEqual(
    Object.keys(main).sort(),
    [...new Set([...Object.keys(core), ...Object.keys(crypto)])].sort(),
  );
  assert.equal(main.buildSnapshot, core.buildSnapshot);
  assert.equal(main.signCard, crypto.signCard);
});

test('deep imports by package name are closed', async () => {
  await assert.rejects(load('cards/dist/src/core/card.js'), {
    code: 'ERR_PACKAGE_PATH_NOT_EXPORTED',
  });
});
