/**
 * `cards requests` against a real `cards serve` (port 0) and the real CLI: the filters
 * (--route, --status, --identity, --since), --follow printing requests as they are served,
 * --expect 'ROUTE STATUS' with --count / --at-least exiting 0 or 5 (VERIFICATION_FAILED, as
 * docs/errors.md gives it: apart from 1, a crash) and printing what was seen,
 * and the journal's size as a serve setting (--journal-size).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { makeCard } from '../http/card-kit.js';
import { BIN, said, type Sandbox } from './harness.js';
import { serverInSandbox, type SandboxServer } from './server-sandbox.js';

interface Entry {
  seq: number;
  route: string;
  status: number;
  identity: string;
  fault?: string;
}

describe('cards requests: filters, --follow, --expect', () => {
  let server: SandboxServer;
  let box: Sandbox;
  let start: string;
  before(async () => {
    ({ server, box } = await serverInSandbox());
    // Cards are posted as a client posts them (the CLI's create also searches first).
    const post = async (identity: string) =>
      (
        await fetch(`${server.url}/card/v5`, {
          method: 'POST',
          headers: {
            authorization: `Service ${await server.token(identity)}`,
            'content-type': 'application/json',
          },
          body: JSON.stringify(makeCard(identity).raw),
        })
      ).status;
    assert.equal(await post('alice'), 201);
    assert.equal(await post('bob'), 201);
    start = new Date().toISOString();
    // One create refused by a fault, one search each.
    await box.cards(['faults', 'add', '--route', 'create', '--error', 'INTERNAL', '--count', '1']);
    assert.equal(await post('carol'), 500);
    for (const identity of ['alice', 'bob'])
      assert.equal((await box.cards(['search', identity, '--identity', identity])).status, 0);
  });
  after(() => Promise.all([server.dispose(), box.cleanup()]));

  const entries = async (...args: string[]): Promise<Entry[]> => {
    const r = await box.cards(['requests', '--json', ...args]);
    assert.equal(r.status, 0, said(r));
    return r.json<{ requests: Entry[] }>().requests;
  };

  test('--route (a name or a unique prefix), --status (exact or class), --identity, --since', async () => {
    assert.deepEqual(
      (await entries('--route', 'create')).map((e) => e.status),
      [500, 201, 201],
    );
    assert.deepEqual(
      (await entries('--route', 'createCard', '--status', '2xx')).map((e) => e.identity),
      ['bob', 'alice'],
    );
    assert.deepEqual(
      (await entries('--status', '500')).map((e) => e.route),
      ['createCard'],
    );
    assert.match((await entries('--status', '500'))[0]?.fault ?? '', /^fault 1: INTERNAL$/);
    assert.deepEqual(
      (await entries('--identity', 'bob')).map((e) => e.route),
      ['searchCards', 'createCard'],
    );
    const since = await entries('--since', start);
    assert.deepEqual(
      since.map((e) => e.route),
      ['searchCards', 'searchCards', 'createCard', 'adminFaultsAdd'],
    );
    assert.deepEqual(await entries('--since', '2099-01-01T00:00:00Z'), []);
    // route names with digits (e3kit's Keyknox routes) are names too
    assert.deepEqual(await entries('--route', 'keyknoxV1Pull'), []);
    assert.deepEqual(await entries('--route', 'keyknoxV1Res'), []);
    assert.equal((await entries('--since', '1h')).length, 6);
    const text = await box.cards(['requests', '--route', 'create', '--status', '500']);
    assert.match(
      text.stdout,
      /POST \/card\/v5 {2}createCard {2}500 10000 {2}carol .*\[fault 1: INTERNAL\]/,
    );
    for (const [args, message] of [
      [['--route', 'revoke'], /could be revokeCard, revokeCardById/],
      [['--route', 'nope'], /not a route name/],
      [['--status', '2x'], /a status is 201 or a class/],
      [['--since', 'yesterday'], /ISO 8601 time or a span/],
    ] as const) {
      const bad = await box.cards(['requests', ...args]);
      assert.equal(bad.status, 2, said(bad));
      assert.match(bad.stderr, message);
    }
  });

  test('--expect exits 0 when it holds and 5 when not, printing what was seen', async () => {
    const holds = await box.cards(['requests', '--expect', 'create 201', '--count', '2']);
    assert.equal(holds.status, 0, said(holds));
    assert.match(holds.stdout, /^ok: expected createCard 201 exactly 2 times; seen 2 times$/m);
    const atLeast = await box.cards(['requests', '--expect', 'search 2xx', '--at-least', '2']);
    assert.equal(atLeast.status, 0, said(atLeast));
    const fails = await box.cards(['requests', '--expect', 'create 201', '--count', '3']);
    assert.equal(fails.status, 5, said(fails));
    assert.match(fails.stdout, /^failed: expected createCard 201 exactly 3 times; seen 2 times$/m);
    // What was seen of the route, every status, the faulted one too.
    assert.match(fails.stdout, /createCard {2}500 10000 {2}carol/);
    assert.equal(fails.stdout.match(/createCard {2}201/g)?.length, 2);
    assert.match(fails.stderr, /VERIFICATION_FAILED.*exactly 3 times; seen 2 times/);
    const none = await box.cards(['requests', '--expect', 'revokeCard 200']);
    assert.equal(none.status, 5);
    assert.match(none.stdout, /no revokeCard request in the journal/);
    const scoped = await box.cards([
      'requests',
      '--expect',
      'create 201',
      '--identity',
      'bob',
      '--count',
      '1',
      '--json',
    ]);
    assert.equal(scoped.status, 0, said(scoped));
    assert.deepEqual(scoped.json<{ expect: unknown }>().expect, {
      route: 'createCard',
      status: '201',
      count: 1,
      seen: 1,
      holds: true,
    });
    const both = await box.cards([
      'requests',
      '--expect',
      'create',
      '--count',
      '1',
      '--at-least',
      '1',
    ]);
    assert.equal(both.status, 2);
  });

  test('--follow prints requests as they are served', async () => {
    const child = spawn(process.execPath, [BIN, 'requests', '--follow', '--route', 'search'], {
      cwd: box.dir,
      env: box.env,
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const seen = async (pattern: RegExp): Promise<void> => {
      for (let waited = 0; !pattern.test(out); waited += 50) {
        if (waited > 60_000) throw new Error(`not seen: ${pattern}; got ${out}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    try {
      // The last ones first (two searches), then each new one as it is served.
      await seen(/searchCards.*\n.*searchCards.*bob/);
      const before = out.split('\n').length;
      assert.equal((await box.cards(['search', 'carol', '--identity', 'carol'])).status, 0);
      await seen(/searchCards {2}200 {2}carol/);
      assert.equal(out.split('\n').length, before + 1, out);
      assert.doesNotMatch(out, /createCard/);
    } finally {
      child.kill('SIGINT');
    }
  });
});

describe('cards serve --journal-size', () => {
  let server: SandboxServer;
  let box: Sandbox;
  before(async () => ({ server, box } = await serverInSandbox({ args: ['--journal-size', '3'] })));
  after(() => Promise.all([server.dispose(), box.cleanup()]));

  test('the journal keeps that many requests', async () => {
    for (let i = 0; i < 5; i++) assert.equal((await fetch(`${server.url}/health`)).status, 200);
    const r = await box.cards(['requests', '--json']);
    assert.equal(r.status, 0, said(r));
    const body = r.json<{ requests: Entry[]; total: number; size: number }>();
    assert.equal(body.size, 3);
    assert.equal(body.total, 5);
    assert.deepEqual(
      body.requests.map((e) => e.seq),
      [5, 4, 3],
    );
    const over = await fetch(`${server.url}/_cards/requests?limit=4`);
    assert.equal(over.status, 400);
    assert.equal(((await over.json()) as { code: string }).code, '30100');
  });
});
