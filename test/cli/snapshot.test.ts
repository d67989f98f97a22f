/**
 * `cards snapshot save|restore|list` against a real `cards serve` (port 0) and the real CLI:
 * a saved registry comes back exactly (same ids, same order, same states) after more cards and
 * a revocation, in one admin request; restore needs --yes; names are checked; a snapshot is
 * not overwritten without --force; a snapshot refused in its middle changes nothing (cards, log).
 */
import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { said, type Sandbox } from './harness.js';
import { serverInSandbox, type SandboxServer } from './server-sandbox.js';

describe('cards snapshot', () => {
  let server: SandboxServer;
  let box: Sandbox;
  before(async () => ({ server, box } = await serverInSandbox()));
  after(() => Promise.all([server.dispose(), box.cleanup()]));

  const listed = async (): Promise<string[]> => {
    const r = await box.cards(['list', '--json']);
    assert.equal(r.status, 0, said(r));
    return r
      .json<{ cards: { id: string; state: string }[] }>()
      .cards.map((c) => `${c.id} ${c.state}`);
  };

  test('save, change the registry, restore: exactly the saved cards again', async () => {
    for (const identity of ['alice', 'bob'])
      assert.equal((await box.cards(['create', '--identity', identity, '--new-key'])).status, 0);
    const saved = await listed();
    const save = await box.cards(['snapshot', 'save', 'two']);
    assert.equal(save.status, 0, said(save));
    assert.match(
      save.stdout,
      /^saved two: 2 card\(s\) of http:\/\/127\.0\.0\.1:\d+ in .*snapshots\/two\.ndjson$/m,
    );
    assert.equal(statSync(`${box.home}/snapshots/two.ndjson`).mode & 0o777, 0o600);

    const carol = await box.cards(['create', '--identity', 'carol', '--new-key', '--json']);
    assert.equal(carol.status, 0, said(carol));
    const first = saved[0]?.split(' ')[0] as string;
    assert.equal((await box.cards(['revoke', first, '--yes', '--identity', 'alice'])).status, 0);
    assert.notDeepEqual(await listed(), saved);

    const refused = await box.cards(['snapshot', 'restore', 'two']);
    assert.equal(refused.status, 2, said(refused));
    assert.match(refused.stderr, /--yes/);
    const restored = await box.cards(['snapshot', 'restore', 'two', '--yes']);
    assert.equal(restored.status, 0, said(restored));
    assert.match(restored.stdout, /^restored two: .* now holds 2 card\(s\)$/m);
    assert.deepEqual(await listed(), saved);
    // One admin request did it (no separate reset).
    const journal = await box.cards(['requests', '--json', '--limit', '3']);
    const routes = journal.json<{ requests: { route: string }[] }>().requests.map((r) => r.route);
    assert.deepEqual(
      routes.slice(0, 2),
      ['adminCards', 'adminImport'],
      'the list, then the restore',
    );
    assert.ok(!routes.includes('adminReset'), routes.join());
  });

  test('a snapshot made invalid in its middle: refused, the registry exactly as it was', async () => {
    for (const identity of ['dave', 'erin'])
      assert.equal((await box.cards(['create', '--identity', identity, '--new-key'])).status, 0);
    const save = await box.cards(['snapshot', 'save', 'broken']);
    assert.equal(save.status, 0, said(save));
    const file = `${box.home}/snapshots/broken.ndjson`;
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    assert.equal(lines.length, 4);
    lines[2] = (lines[2] as string).slice(0, 40);
    writeFileSync(file, `${lines.join('\n')}\n`);
    assert.equal((await box.cards(['create', '--identity', 'frank', '--new-key'])).status, 0);
    const checkpoint = async (): Promise<string> =>
      (await (await fetch(`${server.url}/log/checkpoint`)).text()).split('\n\n')[0] as string;
    const cards = await listed();
    // The log takes in new cards at its interval: compared once it holds every card listed.
    for (let polls = 0; polls < 600; polls++) {
      if (Number((await checkpoint()).split('\n')[1]) === cards.length) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const log = await checkpoint();

    const refused = await box.cards(['snapshot', 'restore', 'broken', '--yes']);
    assert.equal(refused.status, 4, said(refused));
    assert.match(refused.stderr, /IMPORT_INVALID .*line 3 .*unchanged/);
    assert.deepEqual(await listed(), cards);
    assert.equal(cards.length, 5);
    assert.equal(await checkpoint(), log);
  });

  test('list, names, --force', async () => {
    const again = await box.cards(['snapshot', 'save', 'two']);
    assert.equal(again.status, 4, said(again));
    assert.match(
      again.stderr,
      /FILE_EXISTS .*snapshot "two" exists already\.\n {2}--force replaces it/,
    );
    assert.equal((await box.cards(['snapshot', 'save', 'two', '--force'])).status, 0);
    assert.equal((await box.cards(['snapshot', 'save', 'empty-ish'])).status, 0);
    const list = await box.cards(['snapshot', 'list', '--json']);
    assert.deepEqual(
      list
        .json<{ snapshots: { name: string; cards: number }[] }>()
        .snapshots.map((s) => [s.name, s.cards]),
      [
        ['broken', 4],
        ['empty-ish', 5],
        ['two', 5],
      ],
    );
    const bad = await box.cards(['snapshot', 'save', '../escape']);
    assert.equal(bad.status, 2, said(bad));
    const missing = await box.cards(['snapshot', 'restore', 'nope', '--yes']);
    assert.equal(missing.status, 3, said(missing));
  });
});

describe('cards snapshot of a server holding e3kit backups', () => {
  let server: SandboxServer;
  let box: Sandbox;
  before(async () => ({ server, box } = await serverInSandbox()));
  after(() => Promise.all([server.dispose(), box.cleanup()]));

  const pullValue = async (): Promise<string> => {
    const response = await fetch(`${server.url}/keyknox/v1`, {
      headers: { authorization: `Service ${await server.token('kim')}` },
    });
    assert.equal(response.status, 200);
    return ((await response.json()) as { value: string }).value;
  };

  test('the counts say how many cards and how many Keyknox records, never one as the other', async () => {
    assert.equal((await box.cards(['create', '--identity', 'kim', '--new-key'])).status, 0);
    const value = Buffer.from('private key backup').toString('base64');
    const push = await fetch(`${server.url}/keyknox/v1`, {
      method: 'PUT',
      headers: {
        authorization: `Service ${await server.token('kim')}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ meta: Buffer.from('meta').toString('base64'), value }),
    });
    assert.equal(push.status, 200, await push.text());

    const save = await box.cards(['snapshot', 'save', 'backed-up']);
    assert.equal(save.status, 0, said(save));
    assert.match(save.stdout, /^saved backed-up: 1 card\(s\), 1 Keyknox record of http:/m);
    const json = await box.cards(['--json', 'snapshot', 'save', 'backed-up', '--force']);
    assert.equal(json.status, 0, said(json));
    const saved = json.json<{ cards: number; keyknox: number }>();
    assert.deepEqual([saved.cards, saved.keyknox], [1, 1]);
    const list = await box.cards(['--json', 'snapshot', 'list']);
    assert.deepEqual(
      list
        .json<{ snapshots: { cards: number; keyknox: number }[] }>()
        .snapshots.map((s) => [s.cards, s.keyknox]),
      [[1, 1]],
    );
    assert.match(
      (await box.cards(['snapshot', 'list'])).stdout,
      / 1 card\(s\) .*, 1 Keyknox record$/m,
    );

    // `cards export` counts the same way, through the server's admin API.
    const exported = await box.cards(['export', '--out', 'dump.ndjson']);
    assert.equal(exported.status, 0, said(exported));
    assert.match(
      exported.stderr,
      /^exported 1 card, 1 Keyknox record from http:.* to .*dump\.ndjson$/m,
    );
    const exportedJson = await box.cards(['--json', 'export', '--out', 'dump2.ndjson']);
    const counts = exportedJson.json<{ cards: number; keyknox: number }>();
    assert.deepEqual([counts.cards, counts.keyknox], [1, 1]);

    assert.equal((await box.cards(['reset', '--yes'])).status, 0);
    assert.equal(await pullValue(), '', 'reset empties Keyknox');
    const restored = await box.cards(['snapshot', 'restore', 'backed-up', '--yes']);
    assert.equal(restored.status, 0, said(restored));
    assert.match(restored.stdout, /now holds 1 card\(s\)$/m);
    assert.equal(await pullValue(), value, 'the backup is back');
  });
});
