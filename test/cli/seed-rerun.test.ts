/**
 * `cards seed` against a real `cards serve` (port 0) and the real CLI, run again: a rerun
 * creates nothing new and says so, a file grown since (or a run stopped part-way) is refused
 * rather than seeded into second chains, `--reset` starts over, a service emptied since is
 * seeded again, an unknown field is refused naming the one meant, and Ctrl-C prints what was
 * created (exit 130) with the server holding exactly those cards; a second Ctrl-C stops waiting
 * and prints them too, with the cards sent whose answer was not read.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { BIN, said, type Sandbox } from './harness.js';
import { serverInSandbox, type SandboxServer } from './server-sandbox.js';

const SEED = {
  version: 1,
  identities: [
    { ref: 'alice', identity: 'alice', cards: [{ name: 'a1' }, { name: 'a2', replaces: 'a1' }] },
    { identity: 'bob', cards: [{ name: 'b1', revoke: true }] },
  ],
};

describe('cards seed, run again', () => {
  let server: SandboxServer;
  let box: Sandbox;
  let file: string;
  const count = async (): Promise<number> =>
    ((await (await fetch(`${server.url}/health`)).json()) as { cards: number }).cards;
  before(async () => {
    ({ server, box } = await serverInSandbox());
    file = join(box.dir, 'seed.json');
    writeFileSync(file, JSON.stringify(SEED));
  });
  after(() => Promise.all([server.dispose(), box.cleanup()]));

  test('an unknown field is refused, naming the one meant; nothing is created', async () => {
    const typo = join(box.dir, 'typo.json');
    writeFileSync(typo, JSON.stringify(SEED).replace('"replaces"', '"replace"'));
    const r = await box.cards(['seed', typo]);
    assert.equal(r.status, 2, said(r));
    assert.match(r.stderr, /cards\[1\]: unknown field "replace" \(did you mean "replaces"\?\)/);
    const top = join(box.dir, 'top.json');
    writeFileSync(top, JSON.stringify({ ...SEED, identites: [] }));
    assert.match((await box.cards(['seed', top])).stderr, /unknown field "identites"/);
    assert.equal(await count(), 0);
  });

  test("a rerun creates nothing new and says so; the ids are the first run's", async () => {
    const first = await box.cards(['seed', file, '--json', '--concurrency', '1']);
    assert.equal(first.status, 0, said(first));
    // Created in file order (one at a time here): a1, a2, b1, then b1's revoking card.
    const listed = await box.cards(['list', '--json']);
    assert.deepEqual(
      listed
        .json<{ cards: { identity: string; state: string }[] }>()
        .cards.map((c) => `${c.identity} ${c.state}`),
      ['alice superseded', 'alice active', 'bob revoked', 'bob revocation'],
    );
    assert.equal(await count(), 4, 'three cards and the revoking card');
    const again = await box.cards(['seed', file]);
    assert.equal(again.status, 0, said(again));
    assert.match(
      again.stdout,
      /^already seeded: the 3 card\(s\) of this file are on .*; nothing created/m,
    );
    assert.equal(await count(), 4);
    const json = await box.cards(['seed', file, '--json']);
    const rerun = json.json<{
      created: number;
      alreadySeeded: boolean;
      cards: Record<string, { id: string }>;
    }>();
    assert.equal(rerun.created, 0);
    assert.equal(rerun.alreadySeeded, true);
    const ids = (r: typeof rerun) =>
      Object.fromEntries(Object.entries(r.cards).map(([n, c]) => [n, c.id]));
    assert.deepEqual(ids(rerun), ids(first.json()));
  });

  test('a file grown since is refused; --reset starts over', async () => {
    const grown = { ...SEED, identities: [...SEED.identities, { identity: 'carol' }] };
    writeFileSync(file, JSON.stringify(grown));
    const refused = await box.cards(['seed', file]);
    assert.equal(refused.status, 2, said(refused));
    assert.match(refused.stderr, /3 of the 4 cards of this file are on .* already/);
    assert.match(refused.stderr, /--reset/);
    assert.equal(await count(), 4);
    const reset = await box.cards(['seed', file, '--reset']);
    assert.equal(reset.status, 0, said(reset));
    assert.match(reset.stdout, /^seeded 4 card\(s\)/m);
    assert.equal(await count(), 5);
  });

  test('a service emptied since is seeded again', async () => {
    assert.equal((await box.cards(['reset', '--yes'])).status, 0);
    const r = await box.cards(['seed', file]);
    assert.equal(r.status, 0, said(r));
    assert.match(r.stdout, /^seeded 4 card\(s\)/m);
    assert.equal(await count(), 5);
  });

  test('Ctrl-C prints what was created, and the server holds exactly that; --json too', async () => {
    assert.equal((await box.cards(['reset', '--yes'])).status, 0);
    const big = join(box.dir, 'big.json');
    writeFileSync(
      big,
      JSON.stringify({ version: 1, identities: [{ identity: 'user-${n}', count: 2000 }] }),
    );
    const child = spawn(process.execPath, [BIN, 'seed', big, '--concurrency', '1', '--json'], {
      cwd: box.dir,
      env: box.env,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) =>
      child.on('close', (code) => resolve(code)),
    );
    while ((await count()) < 5) await new Promise((resolve) => setTimeout(resolve, 50));
    child.kill('SIGINT');
    assert.equal(await exited, 130, stderr);
    const m = /interrupted \(Ctrl-C\) after (\d+) of 2000 cards created:\n/.exec(stderr);
    assert.ok(m, stderr);
    const created = Number(m[1]);
    assert.ok(created >= 5 && created < 2000, stderr);
    assert.equal(await count(), created);
    assert.match(stderr, /^ {2}user-1#1 [0-9a-f]{64}$/m);
    // Under --json, stdout is the one document: the summary of what was created, and the error.
    const document = JSON.parse(stdout) as {
      created: number;
      cards: Record<string, { id: string }>;
      error: { name: string };
    };
    assert.equal(document.error.name, 'CANCELLED');
    assert.equal(document.created, created);
    assert.match(document.cards['user-1#1']?.id ?? '', /^[0-9a-f]{64}$/);
    // The rerun knows: partly seeded.
    const rerun = await box.cards(['seed', big]);
    assert.equal(rerun.status, 2, said(rerun));
    assert.match(rerun.stderr, new RegExp(`${created} of the 2000 cards`));
  });

  test('a first Ctrl-C says it waits for the cards in flight; a second stops at once, with the summary', async (t) => {
    assert.equal((await box.cards(['reset', '--yes'])).status, 0);
    const faults = `${server.url}/_cards/faults`;
    const rule = { route: 'createCard', delay: '60000' };
    assert.equal(
      (
        await fetch(faults, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(rule),
        })
      ).status,
      201,
    );
    t.after(() => fetch(faults, { method: 'DELETE' }));
    const child = spawn(process.execPath, [BIN, 'seed', file, '--json'], {
      cwd: box.dir,
      env: box.env,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) =>
      child.on('close', (code) => resolve(code)),
    );
    // A create is held by the delay once the rule has matched it.
    const hits = async (): Promise<number> =>
      ((await (await fetch(faults)).json()) as { faults: { hits: number }[] }).faults[0]?.hits ?? 0;
    while ((await hits()) < 1) await new Promise((resolve) => setTimeout(resolve, 50));
    child.kill('SIGINT');
    const deadline = Date.now() + 10_000;
    while (!stderr.includes('waiting for') && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    assert.match(
      stderr,
      /^seed: stopping: .*waiting for the answers to those in flight \(Ctrl-C again stops at once/m,
    );
    assert.equal(child.exitCode, null, 'still waiting for the answer');
    child.kill('SIGINT');
    assert.equal(await exited, 130, stderr);
    assert.match(stderr, /interrupted \(Ctrl-C\) after 0 of 4 cards created\./);
    assert.match(
      stderr,
      /\nsent with no answer read \(Ctrl-C again\), each may be on the service:\n( {2}(a1|b1) [0-9a-f]{64}\n)+/,
    );
    const { error, ...summary } = JSON.parse(stdout) as {
      error: { name: string };
      created: number;
      unanswered: { name: string; id: string }[];
    };
    assert.equal(error.name, 'CANCELLED');
    assert.equal(summary.created, 0);
    assert.ok(
      summary.unanswered.some((card) => card.name === 'a1'),
      stdout,
    );
  });
});
