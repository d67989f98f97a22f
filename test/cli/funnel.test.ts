/**
 * The one run/error funnel and the one declaration of every flag, in-process (src/cli/run.ts
 * with a context of captured streams) and through the executable where the process matters:
 * global flags before or after the command; every command's refusals in the one format, with
 * the --json error document and the exit status of docs/errors.md (serve, export, import,
 * db migrate and witness serve included); settings sources, the profile's as 'config'; each
 * server default declared once, so --help shows what the server uses.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { Command } from 'commander';
import { makeContext } from '../helpers/context.js';
import { buildProgram } from '../../src/cli/program.js';
import { DEFAULT_TIMEOUT_MS } from '../../src/client/defaults.js';
import { runCli } from '../../src/cli/run.js';
import { SHELLS } from '../../src/cli/commands/completion/completion.js';
import { KEY_TYPES } from '../../src/crypto/signing-key.js';
import { numberOf, type ErrorCode } from '../../src/core/errors.js';
import * as defaults from '../../src/server/defaults.js';
import { makeTempDir, removeTempDirs } from '../helpers/server.js';
import { said, sandbox } from './harness.js';
import { serverInSandbox } from './server-sandbox.js';

after(removeTempDirs);

interface Ran {
  status: number;
  stdout: string;
  stderr: string;
  json<T = Record<string, unknown>>(): T;
}

/** `cards ARGS…` in-process, in a temporary folder and home, with `env`. */
async function cards(args: string[], env: Record<string, string> = {}, cwd = makeTempDir()) {
  let stdout = '';
  let stderr = '';
  const ctx = makeContext({
    cwd,
    env: { CARDS_HOME: join(cwd, 'home'), NO_COLOR: '1', ...env },
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  const status = await runCli(args, ctx);
  return {
    status,
    stdout,
    stderr,
    json: <T>() => JSON.parse(stdout) as T,
  } satisfies Ran;
}

const errorDocument = (ran: Ran) =>
  ran.json<{ error: { name: string; code: number | null; message: string; hint: string | null } }>()
    .error;

describe('global flags go before or after the command', () => {
  test('--json, --profile and --no-color before the command, after it, or after its arguments', async () => {
    const dir = makeTempDir();
    const config = join(dir, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({ version: 1, profiles: { p: { url: 'http://profile.test:1' } } }),
    );
    const env = { CARDS_CONFIG: config };
    const before = await cards(['--json', '--profile', 'p', 'config'], env, dir);
    const after = await cards(['config', '--json', '--profile', 'p'], env, dir);
    const mixed = await cards(['--profile', 'p', 'config', '--no-color', '--json'], env, dir);
    for (const ran of [before, after, mixed]) {
      assert.equal(ran.status, 0, ran.stderr);
      const shown = ran.json<{ activeProfile: string; settings: { url: unknown } }>();
      assert.equal(shown.activeProfile, 'p');
      assert.deepEqual(shown.settings.url, { value: 'http://profile.test:1', source: 'config' });
    }
    assert.equal(before.stdout, after.stdout);
    // After a command's own argument too: `cards get ID --json`, `cards --json get ID`.
    const id = 'z'.repeat(64);
    const late = await cards(['get', id, '--json'], env, dir);
    const early = await cards(['--json', 'get', id], env, dir);
    assert.equal(late.status, 4, late.stderr);
    assert.deepEqual(errorDocument(late), errorDocument(early));
    assert.equal(errorDocument(late).name, 'CARD_ID_INVALID');
  });

  test('through the executable: `cards --json …` and `cards --profile P …`', async () => {
    const box = sandbox();
    try {
      const set = await box.cards(
        ['--profile', 'far', 'config', 'set', 'url', 'http://far.test:2'],
        { process: true },
      );
      assert.equal(set.status, 0, said(set));
      const shown = await box.cards(['--json', '--profile', 'far', 'config'], { process: true });
      assert.equal(shown.status, 0, said(shown));
      assert.deepEqual(shown.json<{ settings: { url: unknown } }>().settings.url, {
        value: 'http://far.test:2',
        source: 'config',
      });
      const refused = await box.cards(['--json', 'search', 'x', '--url', 'ftp://x'], {
        process: true,
      });
      assert.equal(refused.status, 2, said(refused));
      assert.equal(refused.json<{ error: { name: string } }>().error.name, 'USAGE');
    } finally {
      box.cleanup();
    }
  });
  test('against a server: `cards --profile p search x` and `cards --json get ID`, either side', async () => {
    const { server, box } = await serverInSandbox({ env: () => ({}) });
    try {
      // The first profile is the default: one that reaches nothing (port 9, refused at once).
      const other = ['--profile', 'other', 'config', 'set', 'url', 'http://127.0.0.1:9'];
      assert.equal((await box.cards(other)).status, 0);
      for (const [key, value] of [
        ['url', server.url],
        ['db', server.paths.store],
      ] as const) {
        const set = await box.cards(['--profile', 'p', 'config', 'set', key, value]);
        assert.equal(set.status, 0, said(set));
      }
      const made = await box.cards(['--profile', 'p', 'create', '--identity', 'x', '--new-key']);
      assert.equal(made.status, 0, said(made));
      // Without --profile the default one is used: it has no credentials for port 9.
      const elsewhere = await box.cards(['search', 'x', '--json']);
      assert.equal(elsewhere.status, 7, said(elsewhere));
      assert.match(elsewhere.json<{ error: { message: string } }>().error.message, /:9\.$/);
      const before = await box.cards(['--profile', 'p', 'search', 'x', '--json']);
      const after = await box.cards(['search', 'x', '--profile', 'p', '--json']);
      assert.equal(before.status, 0, said(before));
      assert.equal(before.stdout, after.stdout);
      type Found = { results: { chains: { id: string }[][] }[] };
      const id = before.json<Found>().results[0]?.chains[0]?.[0]?.id ?? '';
      assert.match(id, /^[0-9a-f]{64}$/);
      const early = await box.cards(['--json', '--profile', 'p', 'get', id]);
      const late = await box.cards(['get', id, '--profile', 'p', '--json']);
      assert.equal(early.status, 0, said(early));
      assert.equal(early.json<{ id: string }>().id, id);
      assert.equal(early.stdout, late.stdout);
    } finally {
      await Promise.all([server.dispose(), box.cleanup()]);
    }
  });
});

describe('every command goes through the one funnel', () => {
  test('serve, export, import, db migrate and witness serve: the --json error document and exit status', async () => {
    const cases: [string[], string, number][] = [
      [['serve', '--port', 'eighty'], 'USAGE', 2],
      [['serve', '--memory', '--db', 'x.json'], 'USAGE', 2],
      [['export', '--store', 'missing.json'], 'FILE_NOT_FOUND', 3],
      [['import', 'missing.ndjson', '--store', 'x.json'], 'FILE_NOT_FOUND', 3],
      [['db', 'migrate', '--store', 'mysql://db.test/cards'], 'STORE_URL_INVALID', 9],
      [['db', 'migrate'], 'USAGE', 2],
      [['witness', 'serve'], 'USAGE', 2],
      [['witness', 'serve', '--log', 'x', '--port', '70000'], 'USAGE', 2],
      [['witness', 'serve', '--log', 'x', '--name', 'a b'], 'USAGE', 2],
    ];
    for (const [args, name, exit] of cases) {
      for (const withJson of [
        [...args, '--json'],
        ['--json', ...args],
      ]) {
        const ran = await cards(withJson);
        const what = `cards ${withJson.join(' ')}: ${ran.stderr}`;
        assert.equal(ran.status, exit, what);
        const error = errorDocument(ran);
        assert.equal(error.name, name, what);
        assert.equal(error.code, numberOf(name as ErrorCode), what);
        assert.match(ran.stderr, new RegExp(`^error ${name} \\(\\d+\\): `, 'm'), what);
      }
      const text = await cards(args);
      assert.equal(text.stdout, '', 'no --json: nothing on stdout');
      assert.equal(text.status, exit);
    }
  });

  test('`cards db migrate --json` with a bad URL: the JSON error document and exit 9 (executable)', async () => {
    const box = sandbox();
    try {
      // Port 9 on loopback: nothing listens, the connection is refused at once.
      const ran = await box.cards(
        ['db', 'migrate', '--json', '--store', 'postgres://u@127.0.0.1:9/x'],
        { process: true },
      );
      assert.equal(ran.status, 9, said(ran));
      const { error } = ran.json<{ error: { name: string; code: number; hint: string } }>();
      assert.equal(error.name, 'STORE_UNREACHABLE');
      assert.equal(error.code, numberOf('STORE_UNREACHABLE'));
      assert.match(ran.stderr, /^error STORE_UNREACHABLE \(90015\): /m);
      const viaEnv = await box.cards(['--json', 'db', 'migrate'], {
        env: { DATABASE_URL: 'postgres://u@127.0.0.1:9/x' },
        process: true,
      });
      assert.equal(viaEnv.status, 9, said(viaEnv));
    } finally {
      box.cleanup();
    }
  });

  test("commander's refusals are USAGE errors in the same format, naming the variable of a bad value", async () => {
    const unknown = await cards(['--json', 'get', 'x', '--frobnicate']);
    assert.equal(unknown.status, 2);
    assert.equal(errorDocument(unknown).name, 'USAGE');
    const choice = await cards(['keygen', '--type', 'dsa', '--json']);
    assert.equal(
      errorDocument(choice).message,
      '--type must be one of ed25519, p256, rsa2048, rsa3072, rsa4096, rsa8192, got "dsa".',
    );
    const fromEnv = await cards(['--json', 'search', 'x'], { CARDS_COMPAT: 'soap' });
    assert.equal(fromEnv.status, 2);
    assert.match(
      errorDocument(fromEnv).message,
      /^CARDS_COMPAT must be one of service, virgil, got "soap"\.$/,
    );
    // A group without its command (`cards log`): its help on stderr, and the USAGE error as
    // every refusal says it, one JSON document under --json.
    for (const group of [['log'], ['faults'], ['witness'], []]) {
      const bare = await cards([...group, '--json']);
      assert.equal(bare.status, 2, said(bare));
      assert.equal(errorDocument(bare).name, 'USAGE', said(bare));
      assert.match(errorDocument(bare).message, /needs a command/);
      const text = await cards(group);
      assert.match(text.stderr, /Commands:[\s\S]*^error USAGE \(90001\): .*needs a command/m);
    }
    const timeout = await cards(['--json', 'get', 'a'.repeat(64)], { CARDS_TIMEOUT: 'soon' });
    assert.match(
      errorDocument(timeout).message,
      /^CARDS_TIMEOUT must be a number of seconds above 0, got "soon"\.$/,
    );
  });
});

describe('settings: flag > env > config profile > default, each with its source', () => {
  test("cards config shows each value's source; an empty variable is unset", async () => {
    const dir = makeTempDir();
    mkdirSync(join(dir, 'cfg'));
    const config = join(dir, 'cfg', 'config.json');
    writeFileSync(
      config,
      JSON.stringify({
        version: 1,
        default: 'main',
        profiles: {
          main: { url: 'http://profile.test:1', identity: 'pat', compat: 'virgil', db: 'p.json' },
        },
      }),
    );
    const shown = await cards(
      ['config', '--json', '--identity', 'flo'],
      { CARDS_CONFIG: config, CARDS_COMPAT: 'service', CARDS_URL: '' },
      dir,
    );
    assert.equal(shown.status, 0, shown.stderr);
    const { settings, serve, activeProfile } = shown.json<{
      activeProfile: string;
      settings: Record<string, { value: unknown; source: string } | null>;
      serve: Record<string, { value: unknown; source: string } | null>;
    }>();
    assert.equal(activeProfile, 'main');
    assert.deepEqual(settings.identity, { value: 'flo', source: 'flag' });
    assert.deepEqual(settings.compat, { value: 'service', source: 'env' });
    assert.deepEqual(settings.url, { value: 'http://profile.test:1', source: 'config' });
    assert.deepEqual(settings.db, { value: join(dir, 'cfg', 'p.json'), source: 'config' });
    assert.deepEqual(settings.timeout, { value: 30, source: 'default' });
    assert.deepEqual(serve.db, { value: join(dir, 'cfg', 'p.json'), source: 'config' });
    assert.deepEqual(serve.compat, { value: 'service', source: 'env' });
    assert.deepEqual(serve.port, { value: defaults.DEFAULT_PORT, source: 'default' });
  });
});

describe('each default is declared once', () => {
  test("serve --help shows the server's own defaults, and config the values serve would use", async () => {
    const help = await cards(['serve', '--help']);
    assert.equal(help.status, 0);
    const text = help.stdout.replace(/\s+/g, ' ');
    const shown = (flag: string): string | undefined =>
      new RegExp(`${flag} <[^>]+> .*?\\(default: ([^,)]+)`).exec(text)?.[1];
    const expected: Record<string, string | number> = {
      '--host': `"${defaults.DEFAULT_HOST}"`,
      '--port': defaults.DEFAULT_PORT,
      '--db': `"${defaults.DEFAULT_DB}"`,
      '--max-connections': defaults.DEFAULT_MAX_CONNECTIONS,
      '--request-timeout': defaults.DEFAULT_REQUEST_TIMEOUT_SECONDS,
      '--compact-bytes': defaults.DEFAULT_COMPACT_BYTES,
      '--pool-size': defaults.DEFAULT_POOL_SIZE,
      '--statement-timeout': defaults.DEFAULT_STATEMENT_TIMEOUT_MS,
      '--log-interval': defaults.DEFAULT_LOG_INTERVAL_MS,
      '--clock-skew': defaults.DEFAULT_CLOCK_SKEW_SECONDS,
    };
    for (const [flag, value] of Object.entries(expected))
      assert.equal(shown(flag), String(value), `${flag} in serve --help`);
    const url = await cards(['get', '--help']);
    assert.match(
      url.stdout.replace(/\s+/g, ' '),
      new RegExp(`--url <url> .*?\\(default: "${defaults.DEFAULT_URL}"`),
    );
    // The client's deadline is the CLI's --timeout default, in seconds.
    assert.match(
      url.stdout.replace(/\s+/g, ' '),
      new RegExp(`--timeout <seconds> .*?\\(default: ${DEFAULT_TIMEOUT_MS / 1000}[,)]`),
    );

    const config = await cards(['config', '--json']);
    assert.deepEqual(config.json<{ settings: Record<string, unknown> }>().settings.timeout, {
      value: DEFAULT_TIMEOUT_MS / 1000,
      source: 'default',
    });
    const serve = config.json<{ serve: Record<string, { value: unknown; source: string }> }>()
      .serve;
    assert.deepEqual(serve.maxConnections, {
      value: defaults.DEFAULT_MAX_CONNECTIONS,
      source: 'default',
    });
    assert.deepEqual(serve.poolSize, { value: defaults.DEFAULT_POOL_SIZE, source: 'default' });
    assert.deepEqual(serve.statementTimeout, {
      value: defaults.DEFAULT_STATEMENT_TIMEOUT_MS,
      source: 'default',
    });
    assert.deepEqual(serve.logInterval, {
      value: defaults.DEFAULT_LOG_INTERVAL_MS,
      source: 'default',
    });
  });

  test('the choices a declaration writes out are the ones its module knows', () => {
    const program = buildProgram(makeContext({ cwd: makeTempDir() }), async () => undefined);
    const command = (path: string): Command =>
      path
        .split(' ')
        .reduce((at, word) => at.commands.find((c) => c.name() === word) as Command, program);
    const keygenType = command('keygen').options.find((o) => o.long === '--type');
    assert.deepEqual(keygenType?.argChoices, [...KEY_TYPES]);
    assert.deepEqual(command('completion').registeredArguments[0]?.argChoices, [...SHELLS]);
  });

  test('every command has a summary, and every command that runs has examples in --help', async () => {
    const program = buildProgram(makeContext({ cwd: makeTempDir() }), async () => undefined);
    const walk = (at: Command, path: string[]): string[][] =>
      at.commands.flatMap((c) => [[...path, c.name()], ...walk(c, [...path, c.name()])]);
    for (const path of walk(program, [])) {
      if (path.at(-1) === 'help') continue;
      const help = await cards([...path, '--help']);
      assert.equal(help.status, 0, path.join(' '));
      assert.match(help.stdout, /^Usage: cards /m, path.join(' '));
      const leaf = path.reduce(
        (at, word) => at.commands.find((c) => c.name() === word) as Command,
        program,
      );
      assert.notEqual(leaf.description(), '', `${path.join(' ')} has a summary`);
      if (leaf.commands.length === 0)
        assert.match(help.stdout, /^Examples:\n {2}\$ /m, `${path.join(' ')} has examples`);
    }
  });

  test('every example in --help is a shell line whose cards commands the program accepts', async () => {
    const ctx = makeContext({ cwd: makeTempDir() });
    const walk = (at: Command, path: string[]): string[][] =>
      at.commands.flatMap((c) => [[...path, c.name()], ...walk(c, [...path, c.name()])]);
    const paths = walk(
      buildProgram(ctx, async () => undefined),
      [],
    ).filter((path) => path.at(-1) !== 'help');
    let checked = 0;
    for (const path of paths) {
      const help = await cards([...path, '--help']);
      for (const [, line = ''] of help.stdout.matchAll(/^ {2}\$ (cards .*)$/gm)) {
        // The shell's own reading of the line, as a person pastes it: each `cards …` of it
        // (between |, &&, ; and before a redirection or a comment) word by word.
        const sh = spawnSync('/bin/sh', ['-nc', line], { encoding: 'utf8' });
        assert.equal(sh.status, 0, `${line}: ${sh.stderr}`);
        for (const part of line.replace(/\s+#.*$/, '').split(/\s*(?:\||&&|;)\s*/)) {
          if (!part.startsWith('cards ')) continue;
          const command = part.replace(/\s*[<>].*$/, '').slice('cards '.length);
          const words = spawnSync(
            '/bin/sh',
            ['-c', `for w in ${command}; do printf '%s\\0' "$w"; done`],
            { encoding: 'utf8', env: { CARD_ID: 'a'.repeat(64), LOG_KEY: 'k', ALICE_KEY: 'k' } },
          );
          assert.equal(words.status, 0, `${line}: ${words.stderr}`);
          const args = words.stdout.split('\0').slice(0, -1);
          // commander's own checks: the command exists, each flag is declared, each choice known.
          const program = buildProgram(ctx, async () => undefined);
          await assert.doesNotReject(program.parseAsync(args, { from: 'user' }), line);
          checked++;
        }
      }
    }
    assert.ok(checked > 50, `${checked} examples checked`);
  });
});
