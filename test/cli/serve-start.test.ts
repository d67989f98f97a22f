/**
 * `cards serve` for tests and scripts: --memory writes nothing,
 * --seed creates a seed file's cards before the port opens, --json prints one start-up line,
 * --ready-file writes the same once listening; a key made inside a git work tree that does not
 * ignore it is warned about. Real processes, port 0, temp dirs; the CLI talks to them.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import {
  CARDS_BIN,
  hermeticEnv,
  makeTempDir,
  removeTempDirs,
  runServeToExit,
  START_LIMIT_MS,
  startServer,
} from '../helpers/server.js';
import { said, sandbox } from './harness.js';

after(removeTempDirs);

const SEED = join(process.cwd(), 'fixtures', 'seed-example.json');

interface StartInfo {
  url: string;
  pid: number;
  serviceKey: string;
  store: string;
  cards: number;
  appKeyFile: string | null;
  appKey?: string;
  seeded: { created: number; revoked: number; identities: number } | null;
}

interface Serving {
  proc: ChildProcess;
  out(): string;
  err(): string;
  exited: Promise<number | null>;
}

function spawnServe(args: readonly string[], cwd: string): Serving {
  const proc = spawn(process.execPath, [CARDS_BIN, 'serve', '--port', '0', ...args], {
    cwd,
    env: hermeticEnv({ CARDS_HOME: join(cwd, '.home') }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stdout?.setEncoding('utf8').on('data', (d: string) => (out += d));
  proc.stderr?.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<number | null>((resolve) =>
    proc.once('close', (code) => resolve(code)),
  );
  return { proc, out: () => out, err: () => err, exited };
}

async function until<T>(what: string, probe: () => T | undefined, serving: Serving): Promise<T> {
  for (let i = 0; i < START_LIMIT_MS / 50; i++) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
  serving.proc.kill('SIGKILL');
  throw new Error(`${what} never came.\nstdout: ${serving.out()}\nstderr: ${serving.err()}`);
}

describe('cards serve --memory, --seed, --json, --ready-file', { concurrency: true }, () => {
  test('--memory --seed --json: one JSON line, seeded cards served, not one file written', async () => {
    const dir = makeTempDir('cards-memory-');
    const serving = spawnServe(['--memory', '--seed', SEED, '--json'], dir);
    await until('the JSON line', () => (serving.out().includes('\n') ? true : undefined), serving);
    const info = JSON.parse(serving.out().split('\n')[0] as string) as StartInfo;
    assert.match(info.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(info.pid, serving.proc.pid);
    assert.equal(info.store, 'memory');
    assert.equal(info.appKeyFile, null);
    assert.ok(info.seeded && info.seeded.created > 10, JSON.stringify(info.seeded));
    assert.equal(info.seeded?.revoked, 3);
    assert.ok(info.cards >= info.seeded.created);
    assert.deepEqual(readdirSync(dir), [], 'nothing written in the working folder');

    // A client mints tokens with the in-memory app key the JSON line gave.
    const box = sandbox({ CARDS_URL: info.url });
    try {
      writeFileSync(join(box.dir, 'app.pem'), info.appKey as string, { mode: 0o600 });
      const found = await box.cards([
        'search',
        'alice@example.com',
        '--app-key',
        'app.pem',
        '--json',
      ]);
      assert.equal(found.status, 0, said(found));
      const chains = found.json<{ results: { chains: { id: string; state: string }[][] }[] }>();
      const cards = chains.results[0]?.chains.flat() ?? [];
      assert.deepEqual(cards.map((c) => c.state).sort(), ['active', 'active', 'superseded']);
      const inspected = await box.cards([
        'inspect',
        cards[0]?.id as string,
        '--app-key',
        'app.pem',
        '--service-key',
        info.serviceKey,
        '--json',
      ]);
      assert.equal(inspected.status, 0, said(inspected));
    } finally {
      box.cleanup();
    }

    serving.proc.kill('SIGTERM');
    assert.equal(await serving.exited, 0, serving.err());
    const lines = serving.out().trim().split('\n');
    assert.equal(lines.length, 2, serving.out());
    assert.deepEqual(JSON.parse(lines[1] as string), {
      stopped: true,
      cards: info.cards,
      store: 'memory',
    });
    assert.deepEqual(readdirSync(dir), [], 'nothing written at stop either');
  });

  test('--ready-file: written once listening (url, service key, pid), removed at stop', async () => {
    const dir = makeTempDir('cards-ready-');
    const serving = spawnServe(['--db', 'cards.json', '--ready-file', 'ready.json'], dir);
    const info = await until(
      'the ready file',
      () =>
        existsSync(join(dir, 'ready.json'))
          ? (JSON.parse(readFileSync(join(dir, 'ready.json'), 'utf8')) as StartInfo)
          : undefined,
      serving,
    );
    assert.equal(info.pid, serving.proc.pid);
    assert.equal(info.appKeyFile, join(dir, 'cards.json.app-key.pem'));
    assert.equal(info.appKey, undefined, 'a key on disk is named, not copied');
    const health = await fetch(`${info.url}/health`);
    assert.equal(health.status, 200);
    assert.match(
      serving.out(),
      new RegExp(`^service key: ${info.serviceKey.replace(/\+/g, '\\+')}$`, 'm'),
    );
    serving.proc.kill('SIGTERM');
    assert.equal(await serving.exited, 0, serving.err());
    assert.ok(!existsSync(join(dir, 'ready.json')), 'removed at stop');
  });

  test('--ready-file a previous run left (killed before its stop) is gone as start-up begins: a start that fails leaves none', async () => {
    const dir = makeTempDir('cards-ready-left-');
    const stale = '{"url":"http://127.0.0.1:1","pid":1}\n';
    writeFileSync(join(dir, 'ready.json'), stale);
    // The port is taken: this start fails after its settings were read.
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    try {
      const port = String((busy.address() as AddressInfo).port);
      const failed = await runServeToExit(
        ['--memory', '--port', port, '--ready-file', 'ready.json'],
        { cwd: dir, process: true },
      );
      assert.equal(failed.code, 2, failed.stderr); // USAGE: the port is in use
      assert.ok(!existsSync(join(dir, 'ready.json')), 'no ready file: a waiting script finds none');
      // A file that is no ready file (the flag naming another by mistake) is left as it was.
      writeFileSync(join(dir, 'notes.txt'), 'mine\n');
      const other = await runServeToExit(
        ['--memory', '--port', port, '--ready-file', 'notes.txt'],
        { cwd: dir, process: true },
      );
      assert.equal(other.code, 2, other.stderr);
      assert.equal(readFileSync(join(dir, 'notes.txt'), 'utf8'), 'mine\n');
    } finally {
      await new Promise((resolve) => busy.close(resolve));
    }
    // A start that listens writes its own, never the one left.
    writeFileSync(join(dir, 'ready.json'), stale);
    const serving = spawnServe(['--memory', '--ready-file', 'ready.json'], dir);
    const info = await until(
      'the ready file of this run',
      () => {
        const text = existsSync(join(dir, 'ready.json'))
          ? readFileSync(join(dir, 'ready.json'), 'utf8')
          : undefined;
        return text === undefined || text === stale ? undefined : (JSON.parse(text) as StartInfo);
      },
      serving,
    );
    assert.equal(info.pid, serving.proc.pid);
    serving.proc.kill('SIGTERM');
    assert.equal(await serving.exited, 0, serving.err());
  });

  test('--seed on a file store: the summary line, then the cards are there', async () => {
    const server = await startServer({ args: ['--seed', SEED] });
    try {
      assert.match(
        server.stdout(),
        /^seeded: \d+ cards \(3 revoked\) for 8 identities from .*seed-example\.json$/m,
      );
      const box = sandbox({ CARDS_URL: server.url, CARDS_DB: server.paths.store });
      try {
        const found = await box.cards(['search', 'bob@example.com', '--json']);
        assert.equal(found.json<{ active: number }>().active, 1, said(found));
      } finally {
        box.cleanup();
      }
    } finally {
      await server.dispose();
    }
  });

  test('--seed again on the same store: nothing created, and it says so', async () => {
    const dir = makeTempDir('cards-reseed-');
    const stored = (stdout: string): number =>
      Number(/^store: .* \((\d+) cards?\)$/m.exec(stdout)?.[1]);
    const first = await startServer({ dir, args: ['--seed', SEED] });
    const firstOut = first.stdout();
    assert.equal((await first.stop()).code, 0);
    assert.match(firstOut, /^seeded: \d+ cards/m);
    const second = await startServer({ dir, args: ['--seed', SEED] });
    const secondOut = second.stdout();
    assert.equal((await second.stop()).code, 0);
    assert.match(
      secondOut,
      /^already seeded: .*seed-example\.json for 8 identities is in the store; nothing created$/m,
    );
    assert.doesNotMatch(secondOut, /^seeded:/m);
    assert.ok(stored(firstOut) > 10, firstOut);
    assert.equal(stored(secondOut), stored(firstOut), secondOut);
  });

  test('refusals before listening: a bad seed file, --memory with --db', async () => {
    const dir = makeTempDir('cards-refused-');
    writeFileSync(
      join(dir, 'bad.json'),
      JSON.stringify({
        version: 1,
        identities: [{ identity: 'x', cards: [{ replaces: 'ghost' }] }],
      }),
    );
    const bad = await runServeToExit(['--memory', '--port', '0', '--seed', 'bad.json'], {
      cwd: dir,
    });
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /ghost/);
    assert.doesNotMatch(bad.stdout, /listening on/);
    const both = await runServeToExit(['--memory', '--db', 'c.json'], { cwd: dir });
    assert.equal(both.code, 2, both.stderr);
    assert.match(both.stderr, /--memory/);
  });
});

describe('cards serve warns about keys git would commit', { concurrency: true }, () => {
  const gitInit = (dir: string): void => {
    const r = spawnSync('git', ['init', '-q', dir]);
    assert.equal(r.status, 0, String(r.stderr));
  };
  const startIn = async (dir: string): Promise<string> => {
    const server = await startServer({ dir, args: ['--db', join(dir, 'data', 'cards.json')] });
    const result = await server.stop();
    assert.equal(result.code, 0, JSON.stringify(result));
    return result.stderr;
  };

  test('a git work tree that does not ignore the keys: a warning naming them', async () => {
    const dir = makeTempDir('cards-git-');
    gitInit(dir);
    const stderr = await startIn(dir);
    assert.match(
      stderr,
      /cards\.json\.service-key\.pem, .*cards\.json\.app-key\.pem and .*cards\.json\.log-key\.pem are private keys inside a git work tree/,
    );
    assert.match(stderr, /\.gitignore/);
    // Made once: a restart does not warn again.
    assert.doesNotMatch(await startIn(dir), /git work tree/);
  });

  test('ignored keys, or no work tree: no warning', async () => {
    const ignored = makeTempDir('cards-git-ignored-');
    gitInit(ignored);
    writeFileSync(join(ignored, '.gitignore'), '*.pem\n');
    assert.doesNotMatch(await startIn(ignored), /git work tree/);
    const plain = makeTempDir('cards-no-git-');
    assert.doesNotMatch(await startIn(plain), /git work tree/);
  });
});
