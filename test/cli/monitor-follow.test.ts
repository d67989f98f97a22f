/**
 * `cards monitor --follow --json` against a real `cards serve` (in this process, on port 0):
 * stdout is NDJSON, one JSON value a line, and nothing else: each card as it is read, and the
 * result of the batch that ends the run (a key not given with --expect-key, exit 5); an error
 * that ends a follow (monitor's or `cards requests --follow`'s) is one JSON line as well.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, test } from 'node:test';
import { BIN, said, sandbox, type Sandbox } from './harness.js';
import { serverInSandbox, type SandboxServer } from './server-sandbox.js';

let server: SandboxServer;
let box: Sandbox;
before(async () => ({ server, box } = await serverInSandbox({ args: ['--log-interval', '50'] })));
after(() => Promise.all([server.dispose(), box.cleanup()]));

interface Event {
  index: number;
  id: string;
  kind: string;
  unexpected: boolean;
}

async function create(where: Sandbox, args: string[]): Promise<string> {
  const made = await where.cards(['create', ...args, '--json']);
  assert.equal(made.status, 0, said(made));
  return made.json<{ id: string }>().id;
}

test('monitor --follow --json prints one JSON value a line, and nothing else', async () => {
  const first = await create(box, ['--identity', 'nd', '--new-key']);
  const second = await create(box, ['--identity', 'nd', '--previous', first]);
  const key = (await box.cards(['key', 'public', '--identity', 'nd'])).stdout.trim();
  const child = spawn(
    process.execPath,
    [
      BIN,
      'monitor',
      '--identity',
      'nd',
      '--expect-key',
      key,
      '--follow',
      '--interval',
      '50',
      '--json',
    ],
    { cwd: box.dir, env: box.env },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  try {
    const lines = (): string[] => out.split('\n').filter((line) => line !== '');
    for (let waited = 0; lines().length < 2; waited += 50) {
      if (waited > 60_000) throw new Error(`two cards not seen; stdout: ${out}; stderr: ${err}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // Someone publishes a card for nd with another key: the run ends, exit 5.
    const intruder = sandbox({ CARDS_URL: server.url, CARDS_DB: server.paths.store });
    try {
      const forged = await create(intruder, ['--identity', 'nd', '--new-key', '--new-chain']);
      assert.equal(await exited, 5, `stdout: ${out}; stderr: ${err}`);
      const values = lines().map((line) => {
        try {
          return JSON.parse(line) as unknown;
        } catch {
          throw new Error(`not a JSON line on stdout: ${line}`);
        }
      });
      const [a, b, last] = values as [Event, Event, { events: Event[]; unexpected: number }];
      assert.equal(values.length, 3, out);
      assert.deepEqual([a.id, a.kind, a.unexpected], [first, 'new', false]);
      assert.deepEqual([b.id, b.kind, b.unexpected], [second, 'replacement', false]);
      assert.equal(last.unexpected, 1);
      assert.deepEqual(
        last.events.map((e) => [e.id, e.kind, e.unexpected]),
        [[forged, 'new', true]],
      );
      assert.match(err, /LOG_UNEXPECTED_KEY 91009/);
    } finally {
      intruder.cleanup();
    }
  } finally {
    child.kill('SIGINT');
  }
});

test('a follow mode that fails under --json says so in one JSON line too', async () => {
  // Nothing listens on port 1 of loopback: the first read fails (UNREACHABLE, exit 6).
  for (const args of [
    ['monitor', '--identity', 'nd', '--follow'],
    ['requests', '--follow'],
  ]) {
    const failed = await box.cards([...args, '--json', '--url', 'http://127.0.0.1:1']);
    assert.equal(failed.status, 6, said(failed));
    const lines = failed.stdout.split('\n').filter((line) => line !== '');
    assert.equal(lines.length, 1, said(failed));
    const error = (JSON.parse(lines[0] as string) as { error: { name: string } }).error;
    assert.equal(error.name, 'UNREACHABLE', said(failed));
  }
});
