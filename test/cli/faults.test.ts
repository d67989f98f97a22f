/**
 * Faults on purpose against a real `cards serve` (port 0) and the real CLI: `cards faults
 * add|list|clear`, `cards serve --faults FILE`, the admin routes. A faulted request changes
 * nothing (a faulted create stores no card and logs nothing) and is marked in the journal; a
 * faulted error is byte for byte the real refusal of the active wire profile (status, headers
 * but the date, body), here compared with a real expired-token 401 in both profiles; a delay
 * delays; a drop closes the connection without an answer; admin routes are never faulted.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { FAULTABLE_ROUTES } from '../../src/core/fault-rule.js';
import { mintToken } from '../../src/crypto/tokens.js';
import { readPrivateKeyFile } from '../../src/io/key-files.js';
import { startInProcess } from '../helpers/in-process-server.js';
import { makeCard } from '../http/card-kit.js';
import { said, type Sandbox } from './harness.js';
import { serverInSandbox, type SandboxServer } from './server-sandbox.js';

interface Journal {
  requests: { path: string; status: number; code: string | null; fault?: string }[];
}

const admin = async <T>(server: SandboxServer, path: string, init: RequestInit = {}) => {
  const response = await fetch(`${server.url}${path}`, init);
  return { status: response.status, body: (await response.json()) as T };
};

const addRule = (server: SandboxServer, rule: unknown) =>
  admin<{ faults: { id: number }[] }>(server, '/_cards/faults', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(rule),
  });

const clear = (server: SandboxServer) =>
  admin<{ cleared: number }>(server, '/_cards/faults', { method: 'DELETE' });

/** A response as bytes a client sees: status, headers but the date, body. */
async function answer(response: Response): Promise<string> {
  const headers = [...response.headers].filter(
    ([name]) => name !== 'date' && name !== 'keep-alive',
  );
  return JSON.stringify({ status: response.status, headers, body: await response.text() });
}

const expiredToken = (server: SandboxServer, identity: string): string =>
  mintToken({
    key: readPrivateKeyFile(server.paths.appKey).key,
    identity,
    now: Date.now() - 3_600_000,
    ttlSeconds: 60,
  });

for (const compat of ['service', 'virgil'] as const)
  describe(`faults (--compat ${compat})`, () => {
    let server: SandboxServer;
    let box: Sandbox;
    const scheme = compat === 'virgil' ? 'Virgil' : 'Service';
    const post = async (token: string, body: unknown) =>
      fetch(`${server.url}/card/v5`, {
        method: 'POST',
        headers: { authorization: `${scheme} ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    before(async () => ({ server, box } = await serverInSandbox({ args: ['--compat', compat] })));
    after(() => Promise.all([server.dispose(), box.cleanup()]));

    test('a faulted TOKEN_EXPIRED is the real expired-token refusal, byte for byte', async () => {
      const card = makeCard('alice');
      const real = await answer(await post(expiredToken(server, 'alice'), card.raw));
      const added = await box.cards([
        'faults',
        'add',
        '--route',
        'create',
        '--error',
        'TOKEN_EXPIRED',
        '--count',
        '1',
      ]);
      assert.equal(added.status, 0, said(added));
      const faulted = await answer(await post(await server.token('alice'), card.raw));
      assert.equal(faulted, real);
      assert.match(real, /"status":401/);
      // The count is spent: the same request now creates the card.
      assert.equal((await post(await server.token('alice'), card.raw)).status, 201);
      // A spent rule stays listed, with nothing left, until cleared.
      const listed = await box.cards(['faults', 'list']);
      assert.match(listed.stdout, /#1 {2}createCard {2}TOKEN_EXPIRED {2}fired 1 {2}left 0/);
      assert.equal((await clear(server)).body.cleared, 1);
    });

    test('a faulted create stores nothing and logs nothing; the journal marks it', async () => {
      const info = async () =>
        (await admin<{ cards: number; log: { size: number } }>(server, '/_cards/info')).body;
      // The card of the test before is in the log first (integrated within --log-interval).
      let before = await info();
      while (before.log.size < before.cards) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        before = await info();
      }
      await addRule(server, { route: 'createCard', error: 'STORE_UNAVAILABLE', status: 503 });
      const response = await post(await server.token('bob'), makeCard('bob').raw);
      assert.equal(response.status, 503);
      const body = (await response.json()) as { code: unknown };
      assert.equal(body.code, compat === 'virgil' ? 10006 : '10006');
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.deepEqual(await info(), before);
      const journal = (await admin<Journal>(server, '/_cards/requests?limit=5')).body;
      const entry = journal.requests.find((r) => r.path === '/card/v5');
      assert.equal(entry?.status, 503);
      assert.match(entry?.fault ?? '', /^fault \d+: STORE_UNAVAILABLE$/);
      assert.equal((await clear(server)).body.cleared, 1);
    });
  });

describe('faults: matching, delay, drop, the file and the CLI', () => {
  let server: SandboxServer;
  let box: Sandbox;
  before(async () => {
    const dir = join(process.env.TMPDIR ?? '/tmp');
    const file = join(dir, `cards-faults-${process.pid}.json`);
    writeFileSync(file, JSON.stringify([{ route: 'health', error: 'INTERNAL', count: 1 }]));
    ({ server, box } = await serverInSandbox({ args: ['--faults', file] }));
  });
  after(() => Promise.all([server.dispose(), box.cleanup()]));

  test('--faults FILE puts its rules in force from the start', async () => {
    const first = await fetch(`${server.url}/health`);
    assert.equal(first.status, 500);
    assert.deepEqual(await first.json(), {
      code: '10000',
      message: 'Request serving internal error. Try again later.',
    });
    assert.equal((await fetch(`${server.url}/health`)).status, 200);
    const listed = await box.cards(['faults', 'list', '--json']);
    assert.equal(listed.status, 0, said(listed));
    assert.deepEqual(listed.json(), {
      faults: [
        {
          route: 'health',
          error: 'INTERNAL',
          count: 1,
          probability: 1,
          id: 1,
          hits: 1,
          remaining: 0,
        },
      ],
    });
    assert.equal((await clear(server)).body.cleared, 1);
  });

  test('a rule matches by identity and method; others pass', async () => {
    const added = await box.cards([
      'faults',
      'add',
      '--route',
      'getCard',
      '--identity',
      'carol',
      '--method',
      'GET',
      '--error',
      'CARD_NOT_FOUND',
    ]);
    assert.equal(added.status, 0, said(added));
    const get = async (identity: string) =>
      fetch(`${server.url}/card/v5/${'a'.repeat(64)}`, {
        headers: { authorization: `Service ${await server.token(identity)}` },
      });
    const carol = await get('carol');
    assert.equal(carol.status, 404);
    assert.match(carol.headers.get('content-type') ?? '', /json/);
    const dave = await get('dave');
    assert.equal(dave.status, 404);
    const journal = (await admin<Journal>(server, '/_cards/requests?limit=2')).body.requests;
    assert.equal(journal[0]?.fault, undefined, 'dave met the real 404');
    assert.match(journal[1]?.fault ?? '', /CARD_NOT_FOUND/);
    await clear(server);
  });

  test('a delay delays, then serves; a drop closes the connection without an answer', async () => {
    assert.equal(
      (
        await box.cards([
          'faults',
          'add',
          '--route',
          'health',
          '--delay',
          '300-400',
          '--count',
          '1',
        ])
      ).status,
      0,
    );
    const started = performance.now();
    assert.equal((await fetch(`${server.url}/health`)).status, 200);
    assert.ok(performance.now() - started >= 300, 'the delay is waited');
    assert.equal(
      (await box.cards(['faults', 'add', '--route', 'health', '--drop', '--count', '1'])).status,
      0,
    );
    await assert.rejects(fetch(`${server.url}/health`), (err: Error) => {
      assert.match(
        String((err.cause as Error | undefined)?.message ?? err),
        /other side closed|socket|ECONNRESET/i,
      );
      return true;
    });
    const journal = (await admin<Journal>(server, '/_cards/requests?limit=5')).body.requests.filter(
      (r) => r.path === '/health',
    );
    assert.equal(journal[0]?.status, 0);
    assert.match(journal[0]?.fault ?? '', /drop$/);
    assert.match(journal[1]?.fault ?? '', /delay 300-400ms$/);
    await clear(server);
  });

  test('--help names every route a fault may touch; a CLI refusal of "revoke" lists both', async () => {
    const help = await box.cards(['faults', 'add', '--help']);
    assert.equal(help.status, 0, said(help));
    const text = help.stdout.replace(/\s+/g, ' ');
    for (const name of FAULTABLE_ROUTES) assert.match(text, new RegExp(`\\b${name}\\b`), name);
    const ambiguous = await box.cards(['faults', 'add', '--route', 'revoke', '--drop']);
    assert.notEqual(ambiguous.status, 0, said(ambiguous));
    assert.match(ambiguous.stderr, /FAULT_INVALID.*could be revokeCard, revokeCardById/);
  });

  test('admin routes are never faulted; a rule without a route spares them too', async () => {
    const refused = await box.cards([
      'faults',
      'add',
      '--route',
      'adminInfo',
      '--error',
      'INTERNAL',
    ]);
    assert.equal(refused.status, 2, said(refused));
    assert.match(refused.stderr, /FAULT_INVALID.*admin or page route/);
    await addRule(server, { error: 'INTERNAL' });
    assert.equal((await fetch(`${server.url}/_cards/info`)).status, 200);
    assert.equal((await fetch(`${server.url}/health`)).status, 500);
    const cleared = await box.cards(['faults', 'clear']);
    assert.equal(cleared.status, 0, said(cleared));
    assert.match(cleared.stdout, /cleared 1 fault rule/);
  });

  test('a bad rule is refused whole with FAULT_INVALID naming the field', async () => {
    for (const [rule, field] of [
      [
        [
          { route: 'health', error: 'INTERNAL' },
          { route: 'health', eror: 'INTERNAL' },
        ],
        'rule 2: unknown field "eror"',
      ],
      [{ route: 'nope', drop: true }, 'route "nope"'],
      [{ route: 'revoke', drop: true }, 'could be revokeCard, revokeCardById'],
      [{ error: 'NOT_A_ROW' }, 'error must be a name'],
      [{ error: 'INTERNAL', status: 503 }, 'status'],
      [{ delay: '200-50' }, 'delay'],
      [{ probability: 0, drop: true }, 'probability'],
      [{ route: 'health' }, 'needs an error, a delay or drop'],
    ] as const) {
      const { status, body } = await addRule(server, rule);
      assert.equal(status, 400);
      assert.equal((body as unknown as { code: string }).code, '30104');
      assert.ok(
        (body as unknown as { message: string }).message.includes(field),
        JSON.stringify(body),
      );
    }
    assert.deepEqual((await admin(server, '/_cards/faults')).body, { faults: [] });
  });
});

test('a stopping server ends its delays: the delayed request is answered and the stop is prompt', async () => {
  const { server, box } = await serverInSandbox();
  try {
    // The longest delay a rule may have: a stop that waited for it would take ten minutes.
    assert.equal((await addRule(server, { route: 'health', delay: '600000' })).status, 201);
    const delayed = fetch(`${server.url}/health`);
    for (let hits = 0; hits === 0;) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      hits = (await admin<{ faults: { hits: number }[] }>(server, '/_cards/faults')).body.faults[0]!
        .hits;
    }
    const started = performance.now();
    await server.stop();
    assert.ok(performance.now() - started < 60_000, 'the stop did not wait for the delay');
    assert.equal((await delayed).status, 200, 'the delayed request was served');
  } finally {
    await Promise.all([server.dispose(), box.cleanup()]);
  }
});

test("a fault's error is no failure in the server's log: its request line names the rule, no warning", async (t) => {
  const server = await startInProcess();
  t.after(() => server.dispose());
  const add = await fetch(`${server.url}/_cards/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify([{ route: 'health', error: 'INTERNAL', count: 1 }]),
  });
  assert.equal(add.status, 201);
  assert.equal((await fetch(`${server.url}/health`)).status, 500);
  await new Promise((resolve) => setImmediate(resolve));
  const log = server.stderr();
  assert.match(log, /GET \/health 500 INTERNAL [\d.]+ms \[fault 1: INTERNAL\]\n/);
  assert.doesNotMatch(log, /warning/);
});
