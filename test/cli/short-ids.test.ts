/**
 * Short card ids, as in git, through `node bin/cards.js` against a real `cards serve` on port 0:
 * a unique prefix of 8 or more hex digits stands for the whole id wherever a command takes one;
 * an ambiguous prefix is refused with CARD_ID_AMBIGUOUS listing the ids, an unknown one is not
 * found, fewer than 8 digits is a usage error, a --previous that is no card id at all is
 * PREVIOUS_ID_INVALID in the same words for every command, and a service without the admin API
 * that finds them (a stock Cards Service) is said to be one.
 */
import assert from 'node:assert/strict';
import { hash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SNAPSHOT_VERSION } from '../../src/core/limits.js';
import { said, type Sandbox } from './harness.js';
import { serverInSandbox, type SandboxServer } from './server-sandbox.js';

/**
 * Two created_at values whose snapshots (as `cards create` makes them for this key) give card
 * ids with the same first 8 hex digits: a birthday search, about 80,000 snapshots.
 */
function colliding(identity: string, publicKey: string): [number, number] {
  const seen = new Map<string, number>();
  for (let at = 1_600_000_000; at < 1_602_000_000; at++) {
    const json = JSON.stringify({
      identity,
      public_key: publicKey,
      version: SNAPSHOT_VERSION,
      created_at: at,
    });
    const prefix = hash('sha512', json, 'hex').slice(0, 8);
    const other = seen.get(prefix);
    if (other !== undefined) return [other, at];
    seen.set(prefix, at);
  }
  throw new Error('no two snapshots share 8 hex digits');
}

describe('short card ids against cards serve', { concurrency: true }, () => {
  let server: SandboxServer;
  let box: Sandbox;
  before(async () => ({ server, box } = await serverInSandbox()));
  after(() => Promise.all([server.dispose(), box.cleanup()]));

  const create = async (args: string[]): Promise<string> => {
    const made = await box.cards(['create', ...args, '--json']);
    assert.equal(made.status, 0, said(made));
    return made.json<{ id: string }>().id;
  };

  test('a unique prefix works for get, inspect, verify, create/rotate --previous and revoke', async () => {
    const id = await create(['--identity', 'sid', '--new-key']);
    const short = id.slice(0, 8);
    const got = await box.cards(['get', short.toUpperCase(), '--json']);
    assert.equal(got.status, 0, said(got));
    assert.equal(got.json<{ id: string }>().id, id);
    const inspected = await box.cards(['inspect', id.slice(0, 12), '--json']);
    assert.equal(inspected.status, 0, said(inspected));
    assert.equal(inspected.json<{ id: string }>().id, id);
    const vkey = (await box.cards(['status', '--json'])).json<{ log: { vkey: string } }>().log.vkey;
    const verified = await box.cards(['verify', short, '--json'], {
      env: { CARDS_LOG_KEY: vkey },
    });
    assert.equal(verified.status, 0, said(verified));
    assert.equal(verified.json<{ id: string }>().id, id);

    const second = await create(['--identity', 'sid', '--previous', short]);
    const rotated = await box.cards([
      'rotate',
      '--identity',
      'sid',
      '--previous',
      second.slice(0, 10),
      '--json',
    ]);
    assert.equal(rotated.status, 0, said(rotated));
    assert.equal(rotated.json<{ replaced: string }>().replaced, second);
    const third = rotated.json<{ id: string }>().id;
    const revoked = await box.cards(['revoke', third.slice(0, 8), '--yes', '--json']);
    assert.equal(revoked.status, 0, said(revoked));
    assert.equal(revoked.json<{ revoked: string }>().revoked, third);
  });

  test('an ambiguous prefix is CARD_ID_AMBIGUOUS listing the ids; nothing is sent', async () => {
    await box.cards(['keygen', '--identity', 'twin']);
    const key = await box.cards(['key', 'public', '--identity', 'twin', '--json']);
    const [first, second] = colliding('twin', key.json<{ publicKey: string }>().publicKey);
    const a = await create(['--identity', 'twin', '--created-at', String(first)]);
    const b = await create(['--identity', 'twin', '--created-at', String(second), '--new-chain']);
    const prefix = a.slice(0, 8);
    assert.equal(b.slice(0, 8), prefix, 'the two ids share 8 hex digits');
    for (const args of [
      ['get', prefix],
      ['revoke', prefix, '--yes'],
      ['create', '--identity', 'twin', '--previous', prefix],
      ['rotate', '--identity', 'twin', '--previous', prefix],
    ]) {
      const refused = await box.cards(args);
      assert.equal(refused.status, 2, said(refused));
      assert.match(refused.stderr, /CARD_ID_AMBIGUOUS \(90021\)/);
      assert.ok(refused.stderr.includes(a) && refused.stderr.includes(b), said(refused));
    }
    const json = await box.cards(['get', prefix, '--json']);
    assert.equal(json.json<{ error: { name: string } }>().error.name, 'CARD_ID_AMBIGUOUS');
    // Neither card was revoked or replaced; one more digit tells them apart.
    const differs = [...a].findIndex((digit, i) => digit !== b[i]);
    const one = await box.cards(['get', a.slice(0, differs + 1), '--json']);
    assert.equal(one.status, 0, said(one));
    assert.equal(one.json<{ id: string; state: string }>().state, 'active');
  });

  test('no match is not found; fewer than 8 digits and offline build are usage errors', async () => {
    const none = await box.cards(['get', 'ffffffff00']);
    assert.equal(none.status, 3, said(none));
    assert.match(none.stderr, /CARD_NOT_FOUND .*No card id starts with ffffffff00/);
    const noPrevious = await box.cards(['rotate', '--identity', 'x', '--previous', 'ffffffff00']);
    assert.equal(noPrevious.status, 3, said(noPrevious));
    assert.match(noPrevious.stderr, /CARD_NOT_FOUND .*No card id starts with ffffffff00/);
    for (const args of [
      ['get', 'abc123'],
      ['revoke', '1234567', '--yes'],
      ['inspect', 'abcd'],
      ['rotate', '--identity', 'x', '--previous', 'abc'],
    ]) {
      const short = await box.cards(args);
      assert.equal(short.status, 2, said(short));
      assert.match(short.stderr, /USAGE \(90001\): .* too short for a card id: give at least 8/);
    }
    const built = await box.cards([
      'build',
      '--identity',
      'off',
      '--new-key',
      '--previous',
      'abcdef12',
    ]);
    assert.equal(built.status, 2, said(built));
    assert.match(built.stderr, /`cards build` works offline: give all 64 hex digits/);
  });

  test('a --previous that is no card id is refused alike by create, build and rotate', async () => {
    const refusals = [];
    for (const command of ['create', 'build', 'rotate']) {
      const refused = await box.cards([command, '--identity', 'odd', '--previous', 'not-an-id']);
      assert.equal(refused.status, 4, said(refused));
      assert.match(
        refused.stderr,
        /^error PREVIOUS_ID_INVALID \(40014\): --previous /,
        said(refused),
      );
      refusals.push(refused.stderr);
    }
    assert.equal(new Set(refusals).size, 1, `one message for every command:\n${refusals.join('')}`);
    assert.equal(existsSync(join(box.home, 'keys', 'odd.pem')), false, 'no key was made');
  });

  test('a service without the admin API is said to be one, not guessed at', async () => {
    // A Cards Service without /_cards: its Error object for a route it does not have.
    const stock = createServer((req, res) => {
      req.resume();
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"code":10002,"message":"Route not found."}');
    });
    await new Promise<void>((resolve) => stock.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(stock.address() as AddressInfo).port}`;
      const got = await box.cards(['get', 'abcdef12', '--url', url, '--token', 'x.y.z']);
      assert.equal(got.status, 2, said(got));
      assert.match(got.stderr, /does not look it up: short ids are found through the admin API/);
      assert.match(got.stderr, /give all 64 hex digits/);
    } finally {
      await new Promise((resolve) => stock.close(resolve));
    }
  });
});

test('no URL set: the refusal names the server beside the store, not the default URL', async () => {
  const { server, box } = await serverInSandbox({
    args: ['--no-admin'],
    env: (s) => ({ CARDS_DB: join(s.dir, 'cards.json') }),
  });
  try {
    const got = await box.cards(['get', 'abcdef12']);
    assert.equal(got.status, 2, said(got));
    assert.ok(got.stderr.includes(`and ${server.url} does not look it up`), said(got));
  } finally {
    await Promise.all([server.dispose(), box.cleanup()]);
  }
});
