/**
 * `cards monitor`'s saved state ($CARDS_HOME/monitor/, where it last stopped for an identity)
 * edited or damaged by hand, against a real `cards serve` (in this process, on port 0): a file
 * that is not JSON, not this identity's state in this origin, or not a whole edge of its size is
 * CONFIG_INVALID, exit 2, and left byte for byte as it was: read from, it would crash the
 * monitor, be taken for a log that changed (exit 8), or start over from entry 0 and overwrite
 * the file. And a server that answers a smaller tree, or another tree, after the monitor read
 * a larger one (a copy of its store and log served again) is exit 8, the state file unchanged.
 */
import assert from 'node:assert/strict';
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { makeTempDir, removeTempDirs } from '../helpers/server.js';
import { said, sandbox, type Sandbox } from '../cli/harness.js';
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
