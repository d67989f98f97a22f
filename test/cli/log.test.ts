/**
 * The transparency log from the CLI, against a real `cards serve`: every card created
 * through the CLI has a proof that `cards verify` accepts; `cards get --proof` saves card and
 * proof for an offline check; `cards monitor` reports an identity's cards and exits 5 on a key
 * not expected; `cards log audit` passes, and fails when an entry bundle is tampered with; a
 * server restarted on an older copy of its store and log (a rewound log) makes `cards verify`
 * exit 8 for a client that accepted a larger checkpoint. The servers run in-process
 * (server-sandbox.ts): what is tested is the log, not the server's process.
 */
import assert from 'node:assert/strict';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { decodeEntryBundle, encodeEntryBundle } from '../../src/log/entry-bundle.js';
import { makeTempDir, removeTempDirs } from '../helpers/server.js';
import { sandbox, type Sandbox } from './harness.js';
import { serverInSandbox, type SandboxServer } from './server-sandbox.js';

after(removeTempDirs);

const LOG = ['--quiet', '--log-interval', '50'];

/** A `cards serve` with LOG's flags in this process, serving from `dir` when given. */
async function logServer(dir?: string): Promise<SandboxServer> {
  const { server, box } = await serverInSandbox({ args: LOG, ...(dir !== undefined && { dir }) });
  box.cleanup();
  return server;
}
const vkeyOf = (server: SandboxServer): string =>
  /^log key: (\S+)$/m.exec(server.stdout())?.[1] ?? '';

async function create(box: Sandbox, identity: string, extra: string[] = []): Promise<string> {
  const r = await box.cards(['create', '--identity', identity, '--new-key', '--json', ...extra]);
  assert.equal(r.status, 0, r.stderr);
  return r.json<{ id: string }>().id;
}

test('verify, get --proof, monitor, log audit and a rewound log, from the CLI', async (t) => {
  let server = await logServer();
  t.after(() => server.dispose());
  const box = sandbox({ CARDS_URL: server.url, CARDS_DB: server.paths.store });
  t.after(() => box.cleanup());
  const vkey = vkeyOf(server);
  assert.match(vkey, /^cards\.local\/[0-9a-f]{16}\+[0-9a-f]{8}\+A/);

  const ids = [await create(box, 'alice'), await create(box, 'bob'), await create(box, 'carol')];
  const replaced = await box.cards([
    'create',
    '--identity',
    'alice',
    '--previous',
    ids[0] as string,
    '--json',
  ]);
  assert.equal(replaced.status, 0, replaced.stderr);
  ids.push(replaced.json<{ id: string }>().id);
  const revoked = await box.cards(['revoke', ids[1] as string, '--yes', '--json']);
  assert.equal(revoked.status, 0, revoked.stderr);

  // Every card created through the CLI: its proof verifies (fetched right after the create).
  for (const id of ids) {
    const r = await box.cards(['verify', id, '--log-key', vkey, '--json']);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.json<{ id: string }>().id, id);
  }
  // Saved beside the card, checked from the files.
  const got = await box.cards(['get', ids[2] as string, '--proof']);
  assert.equal(got.status, 0, got.stderr);
  const proofText = readFileSync(join(box.dir, `${ids[2]}.proof`), 'utf8');
  assert.match(proofText, /^c2sp\.org\/tlog-proof@v1\nindex 2\n/);
  const offline = await box.cards(['verify', `${ids[2]}.json`, '--log-key', vkey, '--json']);
  assert.equal(offline.status, 0, offline.stderr);
  assert.equal(offline.json<{ index: number }>().index, 2);
  // A wrong log key, and a tampered proof, are refused.
  const other = await logServer();
  t.after(() => other.dispose());
  const wrongKey = await box.cards(['verify', ids[2] as string, '--log-key', vkeyOf(other)]);
  assert.notEqual(wrongKey.status, 0);
  writeFileSync(join(box.dir, 'bad.proof'), proofText.replace(/\nindex 2\n/, '\nindex 1\n'));
  const tampered = await box.cards([
    'verify',
    `${ids[2]}.json`,
    '--proof',
    'bad.proof',
    '--log-key',
    vkey,
  ]);
  assert.equal(tampered.status, 5, tampered.stderr);
  assert.match(tampered.stderr, /91003/);

  // Monitor: alice's cards with their indexes; a key she did not publish exits 5.
  const aliceKey = (await box.cards(['key', 'public', '--identity', 'alice'])).stdout.trim();
  const watch = await box.cards([
    'monitor',
    '--identity',
    'alice',
    '--expect-key',
    aliceKey,
    '--log-key',
    vkey,
    '--json',
  ]);
  assert.equal(watch.status, 0, watch.stderr);
  const events = watch.json<{ events: { index: number; kind: string }[] }>().events;
  assert.deepEqual(
    events.map((e) => [e.index, e.kind]),
    [
      [0, 'new'],
      [3, 'replacement'],
    ],
  );
  const again = await box.cards([
    'monitor',
    '--identity',
    'alice',
    '--expect-key',
    aliceKey,
    '--json',
  ]);
  assert.equal(again.json<{ events: unknown[] }>().events.length, 0, 'resumes where it stopped');
  // Someone publishes a card for alice with another key.
  const intruder = sandbox({ CARDS_URL: server.url, CARDS_DB: server.paths.store });
  t.after(() => intruder.cleanup());
  const forged = await create(intruder, 'alice', ['--new-chain']);
  await new Promise((resolve) => setTimeout(resolve, 300));
  const caught = await box.cards(['monitor', '--identity', 'alice', '--expect-key', aliceKey]);
  assert.equal(caught.status, 5, caught.stdout + caught.stderr);
  assert.match(caught.stdout, new RegExp(`#5 new +${forged} key .*UNEXPECTED KEY`));

  // Audit: passes; then fails when an entry bundle on disk is tampered with.
  const audit = await box.cards(['log', 'audit', '--url', server.url, '--log-key', vkey, '--json']);
  assert.equal(audit.status, 0, audit.stdout + audit.stderr);
  const report = audit.json<{ size: number; cardsChecked: number; problems: string[] }>();
  assert.equal(report.size, 6);
  assert.equal(report.cardsChecked, 6);

  // A copy of the whole store and log now; the original grows, and the client accepts that.
  await server.stop();
  const copy = makeTempDir('cards-log-copy-');
  cpSync(server.dir, copy, { recursive: true });
  server = await logServer(server.dir);
  const later = await create(box, 'dave', ['--url', server.url]);
  const accepted = await box.cards([
    'verify',
    later,
    '--log-key',
    vkey,
    '--json',
    '--url',
    server.url,
  ]);
  assert.equal(accepted.status, 0, accepted.stderr);
  assert.equal(accepted.json<{ treeSize: number }>().treeSize, 7);

  const bundle = join(server.dir, 'cards.json.log', 'tile', 'entries', '000.p', '7');
  const entries = decodeEntryBundle(new Uint8Array(readFileSync(bundle))) ?? [];
  entries[4] = new TextEncoder().encode('{"identity":"mallory"}');
  writeFileSync(bundle, encodeEntryBundle(entries));
  const broken = await box.cards(['log', 'audit', '--url', server.url, '--no-cards']);
  assert.equal(broken.status, 8, broken.stdout + broken.stderr);
  assert.match(broken.stderr, /91004/);
  await server.stop();

  // The server on the older copy: same key, a shorter (then different) log.
  const rewound = await logServer(copy);
  t.after(() => rewound.dispose());
  const box2Env = { CARDS_URL: rewound.url, CARDS_DB: rewound.paths.store };
  const fork = await box.cards(['create', '--identity', 'erin', '--new-key', '--json'], {
    env: box2Env,
  });
  assert.equal(fork.status, 0, fork.stderr);
  const forkId = fork.json<{ id: string }>().id;
  const refused = await box.cards(['verify', forkId, '--log-key', vkey], { env: box2Env });
  assert.equal(refused.status, 8, refused.stdout + refused.stderr);
  assert.match(refused.stderr, /LOG_INCONSISTENT|forked or rewound/);
  // A client that never saw the larger checkpoint has nothing to compare: it accepts.
  const fresh = sandbox({ ...box2Env });
  t.after(() => fresh.cleanup());
  assert.equal((await fresh.cards(['verify', forkId, '--log-key', vkey])).status, 0);
});

test('log audit compares every page of the registry list with the log (1,100 cards)', async (t) => {
  const server = await logServer();
  t.after(() => server.dispose());
  const box = sandbox({ CARDS_URL: server.url, CARDS_DB: server.paths.store });
  t.after(() => box.cleanup());
  const identities = Array.from({ length: 1100 }, (_, i) => ({
    identity: `user-${i}@example.com`,
    cards: [{}],
  }));
  writeFileSync(join(box.dir, 'seed.json'), JSON.stringify({ version: 1, identities }));
  const seeded = await box.cards(['seed', 'seed.json', '--json']);
  assert.equal(seeded.status, 0, seeded.stderr);
  // The log integrates the cards every 50 ms: the audit starts once its checkpoint holds them all.
  let size = 0;
  for (let polls = 0; size < 1100 && polls < 600; polls++) {
    if (polls > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    const checkpoint = await (await fetch(`${server.url}/log/checkpoint`)).text();
    size = Number(checkpoint.split('\n')[1]);
  }
  // The admin list answers 1,000 cards a page: the audit follows next_cursor to the end.
  const audit = await box.cards(['log', 'audit', '--url', server.url, '--json']);
  assert.equal(audit.status, 0, audit.stdout + audit.stderr);
  const report = audit.json<{
    size: number;
    cardsChecked: number;
    adminList: string;
    problems: string[];
  }>();
  assert.deepEqual(
    [report.size, report.cardsChecked, report.adminList, report.problems],
    [1100, 1100, 'checked', []],
  );
});

test('log audit of a log behind the registry: cards stored after its checkpoint are not problems', async (t) => {
  // A minute between integrations: the first card is logged at once, the next waits.
  const { server, box } = await serverInSandbox({ args: ['--quiet', '--log-interval', '60000'] });
  t.after(() => server.dispose());
  t.after(() => box.cleanup());
  await create(box, 'alice');
  for (let polls = 0; polls < 600; polls++) {
    const checkpoint = await (await fetch(`${server.url}/log/checkpoint`)).text();
    if (checkpoint.split('\n')[1] === '1') break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await create(box, 'bob');
  const audit = await box.cards(['log', 'audit', '--url', server.url, '--json']);
  assert.equal(audit.status, 0, audit.stdout + audit.stderr);
  const report = audit.json<{ size: number; cardsChecked: number; problems: string[] }>();
  assert.deepEqual([report.size, report.cardsChecked, report.problems], [1, 1, []]);
});

test('a log read the server fails (5xx) is UNREACHABLE (exit 6) naming its code, as a card read is', async (t) => {
  const server = await logServer();
  t.after(() => server.dispose());
  const box = sandbox({ CARDS_URL: server.url, CARDS_DB: server.paths.store });
  t.after(() => box.cleanup());
  await create(box, 'dora');
  // Once the card is in a checkpoint, reading the log reads its tiles.
  for (;;) {
    const audit = await box.cards(['--json', 'log', 'audit']);
    if (audit.json<{ size: number }>().size > 0) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const cases = [
    ['logTile', ['--error', 'STORE_UNAVAILABLE', '--status', '503'], ['log', 'audit'], 503],
    ['logCheckpoint', ['--error', 'INTERNAL'], ['monitor', '--identity', 'dora'], 500],
  ] as const;
  for (const [route, fault, command, status] of cases) {
    const added = await box.cards(['faults', 'add', '--route', route, ...fault]);
    assert.equal(added.status, 0, added.stderr);
    const failed = await box.cards(['--json', ...command]);
    assert.equal(failed.status, 6, `${command.join(' ')}: ${failed.stderr}`);
    const { error } = failed.json<{ error: { name: string; message: string } }>();
    assert.equal(error.name, 'UNREACHABLE');
    assert.match(error.message, new RegExp(`HTTP ${status} — ${fault[1]} \\(\\d+\\)`));
    assert.equal((await box.cards(['faults', 'clear'])).status, 0);
  }
});
