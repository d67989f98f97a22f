/**
 * `cards monitor`'s saved state ($CARDS_HOME/monitor/, where it last stopped for an identity)
 * edited or damaged by hand, against a real `cards serve` (in this process, on port 0): a file
 * that is not JSON, not this identity's state in this origin, or not a whole edge of its size is
 * CONFIG_INVALID, exit 2, and left byte for byte as it was: read from, it would crash the
 * monitor, be taken for a log that changed (exit 8), or start over from entry 0 and overwrite
 * the file. And a server that answers a smaller tree, or another tree, after the monitor read
 * a larger one (a copy of its store and log served again) is exit 8, the state file unchanged.
 * One monitor at a time keeps an identity's state in a log: a second, while one runs, is
 * STORE_LOCKED (exit 1), so two never write one over the other and the state never goes back to
 * an older point; and a temporary file a monitor killed mid-write left beside the state is
 * removed by the next run.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { makeTempDir, removeTempDirs } from '../helpers/server.js';
import { BIN, said, sandbox, type Sandbox } from '../cli/harness.js';
import { serverInSandbox, type SandboxServer } from '../cli/server-sandbox.js';

after(removeTempDirs);

async function logServer(dir?: string): Promise<SandboxServer> {
  const { server, box } = await serverInSandbox({
    args: ['--quiet', '--log-interval', '50'],
    ...(dir !== undefined && { dir }),
  });
  box.cleanup();
  return server;
}

async function create(box: Sandbox, server: SandboxServer, identity: string): Promise<void> {
  const { url, paths } = server;
  const made = await box.cards(['create', '--identity', identity, '--new-key', '--url', url], {
    env: { CARDS_DB: paths.store },
  });
  assert.equal(made.status, 0, said(made));
}

/** Waits until the server's checkpoint signs `size` entries. */
async function signed(url: string, size: number): Promise<void> {
  for (let polls = 0; ; polls++) {
    const checkpoint = await (await fetch(`${url}/log/checkpoint`)).text();
    if (Number(checkpoint.split('\n')[1]) >= size) return;
    if (polls > 600) throw new Error(`the log never signed ${size} entries`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function stateFile(box: Sandbox): string {
  const dir = join(box.home, 'monitor');
  const [name, ...others] = readdirSync(dir).filter((f) => f.endsWith('.json'));
  assert.ok(name !== undefined && others.length === 0, readdirSync(dir).join(', '));
  return join(dir, name);
}

test('a monitor state edited or damaged by hand is refused (exit 2) and left as it is', async (t) => {
  const server = await logServer();
  t.after(() => server.dispose());
  const box = sandbox({ CARDS_URL: server.url });
  t.after(() => box.cleanup());
  for (const identity of ['alice', 'bob', 'carol']) await create(box, server, identity);
  await signed(server.url, 3);
  const first = await box.cards(['monitor', '--identity', 'alice', '--json']);
  assert.equal(first.status, 0, said(first));
  const file = stateFile(box);
  const good = readFileSync(file, 'utf8');
  const state = JSON.parse(good) as {
    origin: string;
    identity: string;
    edge: { size: number; tiles: string[][]; bundle: string[] };
  };
  assert.equal(state.edge.size, 3);
  const edge = (change: object): string =>
    JSON.stringify({ ...state, edge: { ...state.edge, ...change } });
  const damaged: Record<string, string> = {
    truncated: good.slice(0, 40),
    empty: '',
    'not JSON': 'hello',
    null: 'null',
    'a number': '42',
    'an array': '[]',
    'another origin': JSON.stringify({ ...state, origin: 'example.com/other' }),
    'another identity': JSON.stringify({ ...state, identity: 'bob' }),
    'no edge': JSON.stringify({ origin: state.origin, identity: state.identity }),
    'no tiles': edge({ tiles: undefined }),
    'a negative size': edge({ size: -3 }),
    'a fraction': edge({ size: 1.5 }),
    'a size as text': edge({ size: '3' }),
    'a huge size': edge({ size: 1e300 }),
    'a bigger size than its hashes': edge({ size: 10 }),
    'a smaller size than its hashes': edge({ size: 1 }),
    'a hash cut short': edge({ tiles: [state.edge.tiles[0]?.map((h) => h.slice(0, 8))] }),
    'an entry not base64': edge({ bundle: state.edge.bundle.map(() => '%%') }),
  };
  for (const [what, text] of Object.entries(damaged)) {
    writeFileSync(file, text);
    const r = await box.cards(['monitor', '--identity', 'alice', '--json']);
    assert.equal(r.status, 2, `${what}: ${said(r)}`);
    assert.match(r.stderr, /CONFIG_INVALID/, what);
    assert.equal(readFileSync(file, 'utf8'), text, `${what}: the file is left as it was`);
  }
  writeFileSync(file, good);
  const again = await box.cards(['monitor', '--identity', 'alice', '--json']);
  assert.equal(again.status, 0, said(again));
  assert.deepEqual(again.json<{ from: number; to: number }>(), {
    ...again.json<object>(),
    from: 3,
    to: 3,
  });
});

test('a smaller or another tree after a larger one was read: exit 8, the state unchanged', async (t) => {
  let server = await logServer();
  const box = sandbox({});
  t.after(() => box.cleanup());
  for (const identity of ['alice', 'bob']) await create(box, server, identity);
  await signed(server.url, 2);
  await server.stop();
  const copy = makeTempDir('cards-monitor-copy-');
  cpSync(server.dir, copy, { recursive: true });
  server = await logServer(server.dir);
  t.after(() => server.dispose());
  for (const identity of ['carol', 'dan']) await create(box, server, identity);
  await signed(server.url, 4);
  const read = await box.cards(['monitor', '--identity', 'alice', '--url', server.url, '--json']);
  assert.equal(read.status, 0, said(read));
  assert.equal(read.json<{ to: number }>().to, 4);
  const file = stateFile(box);
  const saved = readFileSync(file, 'utf8');
  await server.stop();

  // The same log key on the older copy: 2 entries, then 4 and 5 others than the ones read.
  const rewound = await logServer(copy);
  t.after(() => rewound.dispose());
  const refused = async (size: number): Promise<void> => {
    const r = await box.cards(['monitor', '--identity', 'alice', '--url', rewound.url]);
    assert.equal(r.status, 8, `size ${size}: ${said(r)}`);
    assert.match(r.stderr, /LOG_INCONSISTENT/);
    assert.equal(readFileSync(file, 'utf8'), saved, `size ${size}: the state is unchanged`);
  };
  await refused(2);
  for (const identity of ['erin', 'frank']) await create(box, rewound, identity);
  await signed(rewound.url, 4);
  await refused(4);
  await create(box, rewound, 'gina');
  await signed(rewound.url, 5);
  await refused(5);
});

test('a second monitor of an identity in a log, while one runs, is refused (exit 1); others run', async (t) => {
  const server = await logServer();
  t.after(() => server.dispose());
  const box = sandbox({ CARDS_URL: server.url });
  t.after(() => box.cleanup());
  for (const identity of ['alice', 'bob']) await create(box, server, identity);
  await signed(server.url, 2);
  const follow = spawn(
    process.execPath,
    [BIN, 'monitor', '--identity', 'alice', '--follow', '--interval', '50'],
    { cwd: box.dir, env: box.env, stdio: 'ignore' },
  );
  const exited = new Promise((resolve) => follow.on('exit', resolve));
  t.after(() => follow.kill('SIGKILL'));
  const monitorDir = join(box.home, 'monitor');
  for (
    let polls = 0;
    !(existsSync(monitorDir) && readdirSync(monitorDir).some((f) => f.endsWith('.json')));
    polls++
  ) {
    if (polls > 600) throw new Error('the follow never saved its state');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const second = await box.cards(['monitor', '--identity', 'alice']);
  assert.equal(second.status, 1, said(second));
  assert.match(
    second.stderr,
    /^error STORE_LOCKED \(90008\): Another cards monitor \(pid \d+\) is reading the log for alice /,
    said(second),
  );
  const other = await box.cards(['monitor', '--identity', 'bob']);
  assert.equal(other.status, 0, said(other));
  follow.kill('SIGINT');
  await exited;
  const after = await box.cards(['monitor', '--identity', 'alice']);
  assert.equal(after.status, 0, said(after));
});

test('a temporary file a monitor killed mid-write left beside its state is removed by the next run', async (t) => {
  const server = await logServer();
  t.after(() => server.dispose());
  const box = sandbox({ CARDS_URL: server.url });
  t.after(() => box.cleanup());
  await create(box, server, 'alice');
  await signed(server.url, 1);
  const first = await box.cards(['monitor', '--identity', 'alice']);
  assert.equal(first.status, 0, said(first));
  const file = stateFile(box);
  // The names fs-durable writes beside a file: its pid, or its pid and a random part. A pid
  // above the kernel's pid_max (2^22) names no process.
  const dead = [`.${basename(file)}.4194999.tmp`, `.${basename(file)}.4194999.0a1b2c3d.tmp`];
  // A writer that runs keeps its file (the test runner's pid: this CLI runs in this process).
  const live = `.${basename(file)}.${process.ppid}.tmp`;
  for (const name of [...dead, live]) writeFileSync(join(dirname(file), name), '{"half":');
  const again = await box.cards(['monitor', '--identity', 'alice']);
  assert.equal(again.status, 0, said(again));
  const left = readdirSync(dirname(file));
  for (const name of dead) assert.ok(!left.includes(name), `${name} removed: ${left.join(', ')}`);
  assert.ok(left.includes(live), `${live} kept: ${left.join(', ')}`);
});
