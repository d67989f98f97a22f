/**
 * `cards monitor --follow` against a real `cards serve` (in this process, on port 0): each card
 * as it is read, as one line of text (the line the result lists it with) or, with --json, as one
 * JSON value a line (NDJSON, nothing else); then the result of the batch that ends the run (a
 * key not given with --expect-key, exit 5). An error that ends a follow (monitor's or `cards
 * requests --follow`'s) is one JSON line as well.
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

/** `cards monitor … --follow` in its own process: its stdout lines as they come, and its exit. */
function follow(args: string[]) {
  const child = spawn(process.execPath, [BIN, 'monitor', ...args, '--follow', '--interval', '50'], {
    cwd: box.dir,
    env: box.env,
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const lines = (): string[] => out.split('\n').filter((line) => line !== '');
  return {
    lines,
    exited,
    said: () => `stdout: ${out}; stderr: ${err}`,
    stderr: () => err,
    /** Resolves once `count` lines were printed. */
    async printed(count: number): Promise<void> {
      for (let waited = 0; lines().length < count; waited += 50) {
        if (waited > 60_000) throw new Error(`${count} lines not seen; ${this.said()}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    stop: () => child.kill('SIGINT'),
  };
}

/** Someone publishes a card for `identity` with another key: a follow run ends on it, exit 5. */
async function intrude(identity: string): Promise<string> {
  const intruder = sandbox({ CARDS_URL: server.url, CARDS_DB: server.paths.store });
  try {
    return await create(intruder, ['--identity', identity, '--new-key', '--new-chain']);
  } finally {
    intruder.cleanup();
  }
}

/** Two cards of `identity`, one chain: their ids and the key both carry. */
async function chainOfTwo(
  identity: string,
): Promise<{ first: string; second: string; key: string }> {
  const first = await create(box, ['--identity', identity, '--new-key']);
  const second = await create(box, ['--identity', identity, '--previous', first]);
  const key = (await box.cards(['key', 'public', '--identity', identity])).stdout.trim();
  return { first, second, key };
}

test('monitor --follow --json prints one JSON value a line, and nothing else', async () => {
  const { first, second, key } = await chainOfTwo('nd');
  const run = follow(['--identity', 'nd', '--expect-key', key, '--json']);
  try {
    await run.printed(2);
    const forged = await intrude('nd');
    assert.equal(await run.exited, 5, run.said());
    const values = run.lines().map((line) => {
      try {
        return JSON.parse(line) as unknown;
      } catch {
        throw new Error(`not a JSON line on stdout: ${line}`);
      }
    });
    const [a, b, last] = values as [Event, Event, { events: Event[]; unexpected: number }];
    assert.equal(values.length, 3, run.said());
    assert.deepEqual([a.id, a.kind, a.unexpected], [first, 'new', false]);
    assert.deepEqual([b.id, b.kind, b.unexpected], [second, 'replacement', false]);
    assert.equal(last.unexpected, 1);
    assert.deepEqual(
      last.events.map((e) => [e.id, e.kind, e.unexpected]),
      [[forged, 'new', true]],
    );
    assert.match(run.stderr(), /LOG_UNEXPECTED_KEY 91009/);
  } finally {
    run.stop();
  }
});

test('monitor --follow prints each card as one line of text, as the result lists them', async () => {
  const { first, second, key } = await chainOfTwo('tx');
  const run = follow(['--identity', 'tx', '--expect-key', key]);
  try {
    await run.printed(2);
    const forged = await intrude('tx');
    assert.equal(await run.exited, 5, run.said());
    const [a, b, ...rest] = run.lines();
    assert.match(a ?? '', new RegExp(`^#\\d+ new {9}${first} key ${escape(key)}$`));
    assert.match(b ?? '', new RegExp(`^#\\d+ replacement ${second} key ${escape(key)}$`));
    assert.match(
      rest.join('\n'),
      new RegExp(`\\n  #\\d+ new {9}${forged} key \\S+ UNEXPECTED KEY$`),
    );
  } finally {
    run.stop();
  }
});

const escape = (text: string): string => text.replace(/[+/=]/g, '\\$&');

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
