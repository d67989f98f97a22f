/**
 * `cards serve` resolves its settings like every command (flag > env > profile > default):
 * environment switches mean what they say, bad values name their variable, and `cards config`
 * lists serve's settings with their source. `cards serve` in this process (its options, a real
 * port 0; refusals through the executable's funnel), temp dirs.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { said, sandbox } from './harness.js';
import { startInProcess } from '../helpers/in-process-server.js';
import { makeTempDir, removeTempDirs, runServeToExit } from '../helpers/server.js';

after(removeTempDirs);

/** Starts serve with `env`, asks /health from another origin, and stops it. */
async function probe(env: Record<string, string>): Promise<{ cors: boolean; logged: boolean }> {
  const server = await startInProcess({ env });
  try {
    const health = await fetch(`${server.url}/health`, { headers: { origin: 'http://app.test' } });
    assert.equal(health.status, 200);
    const cors = health.headers.get('access-control-allow-origin') === '*';
    // Closes as `cards serve` does on SIGINT; rejects when closing fails.
    await server.stop();
    return { cors, logged: /GET \/health 200/.test(server.stderr()) };
  } finally {
    await server.dispose();
  }
}

describe('cards serve: switches from the environment', () => {
  test('CARDS_NO_CORS: 0/false/no keep CORS on; 1/true/yes turn it off', async () => {
    const values = ['0', 'false', 'no', 'FALSE', '1', 'true', 'yes', 'Yes'];
    const results = await Promise.all(values.map((v) => probe({ CARDS_NO_CORS: v })));
    values.forEach((value, i) =>
      assert.equal(results[i]?.cors, i < 4, `CARDS_NO_CORS=${value}: CORS ${i < 4 ? 'on' : 'off'}`),
    );
  });

  test('CARDS_QUIET: 0/false keep the request log; 1/true silence it', async () => {
    const values = ['0', 'false', '1', 'true'];
    const results = await Promise.all(values.map((v) => probe({ CARDS_QUIET: v })));
    values.forEach((value, i) =>
      assert.equal(results[i]?.logged, i < 2, `CARDS_QUIET=${value}: log ${i < 2 ? 'on' : 'off'}`),
    );
  });

  test('a switch or number the resolver cannot read is a usage error naming the variable', async () => {
    const dir = makeTempDir();
    for (const [variable, value] of [
      ['CARDS_NO_CORS', 'maybe'],
      ['CARDS_QUIET', 'on'],
      ['CARDS_PORT', 'eighty'],
      ['CARDS_MAX_CONNECTIONS', '0'],
      ['CARDS_LOG_FORMAT', 'xml'],
    ] as const) {
      const result = await runServeToExit(['--db', join(dir, 'c.json')], {
        env: { [variable]: value },
      });
      assert.equal(result.code, 2, `${variable}=${value}: ${result.stderr}`);
      assert.match(result.stderr, new RegExp(`USAGE.*${variable}.*"${value}"`));
    }
  });

  test('a --ready-file or --export-on-exit with no folder to go in stops start-up; nothing is made', async () => {
    const dir = makeTempDir();
    for (const args of [
      ['--db', join(dir, 'new', 'cards.json'), '--ready-file', join(dir, 'nowhere', 'ready.json')],
      ['--memory', '--export-on-exit', join(dir, 'nowhere', 'dump.ndjson')],
    ]) {
      const result = await runServeToExit(['--port', '0', ...args], { cwd: dir });
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stdout} ${result.stderr}`);
      assert.match(result.stderr, /USAGE.*(--ready-file|--export-on-exit) .*no folder/);
      assert.doesNotMatch(result.stdout, /listening/);
      assert.deepEqual(
        readdirSync(dir).filter((name) => name !== '.cards-no-home'),
        [],
        'no store, no folder',
      );
    }
  });
});

describe('cards config: serve settings', () => {
  test("each of serve's settings with its source: flag, env, config (the profile), default", async () => {
    const box = sandbox();
    try {
      const cfgDir = join(box.dir, 'cfg');
      mkdirSync(cfgDir);
      const config = join(cfgDir, 'config.json');
      writeFileSync(
        config,
        JSON.stringify({
          version: 1,
          default: 'local',
          profiles: { local: { db: 'stores/main.json', compat: 'virgil' } },
        }),
      );
      const shown = await box.cards(['config', '--json'], {
        env: { CARDS_CONFIG: config, CARDS_PORT: '9000', CARDS_NO_CORS: 'true', CARDS_QUIET: '0' },
      });
      assert.equal(shown.status, 0, said(shown));
      const serve = shown.json<{
        serve: Record<string, { value: unknown; source: string } | null>;
      }>().serve;
      assert.deepEqual(serve.port, { value: 9000, source: 'env' });
      assert.deepEqual(serve.host, { value: '127.0.0.1', source: 'default' });
      assert.deepEqual(serve.db, { value: join(cfgDir, 'stores/main.json'), source: 'config' });
      assert.deepEqual(serve.compat, { value: 'virgil', source: 'config' });
      assert.deepEqual(serve.cors, { value: false, source: 'env' });
      assert.deepEqual(serve.quiet, { value: false, source: 'env' });
      assert.deepEqual(serve.serviceKeyFile, {
        value: join(cfgDir, 'stores/main.json.service-key.pem'),
        source: 'default',
      });
      for (const key of [
        'jwtKeys',
        'appId',
        'appKeyId',
        'logFormat',
        'maxConnections',
        'requestTimeout',
        'compactBytes',
      ])
        assert.ok(key in serve, `config lists serve's ${key}`);
      const flagged = await box.cards(['config', '--json', '--db', 'here.json'], {
        env: { CARDS_CONFIG: config },
      });
      assert.deepEqual(flagged.json<{ serve: { db: unknown } }>().serve.db, {
        value: 'here.json',
        source: 'flag',
      });
      const text = await box.cards(['config'], { env: { CARDS_CONFIG: config } });
      assert.match(text.stdout, /^serve$/m);
      assert.match(text.stdout, /^ {2}maxConnections +1024 \(default\)$/m);
    } finally {
      box.cleanup();
    }
  });

  test("serve starts with the profile's db and compat, as config shows", async () => {
    const dir = makeTempDir();
    const config = join(dir, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({
        version: 1,
        profiles: { local: { db: 'from-profile.json', compat: 'virgil' } },
      }),
    );
    const server = await startInProcess({
      dir,
      // An empty CARDS_DB is unset for the resolver, and keeps the helper from adding --db.
      env: { CARDS_CONFIG: config, CARDS_PROFILE: 'local', CARDS_DB: '' },
      args: ['--quiet'],
    });
    try {
      assert.match(server.stdout(), /^store: .*from-profile\.json \(0 cards\)$/m);
      assert.match(server.stdout(), /^profile: virgil /m);
    } finally {
      await server.dispose();
    }
  });
});

describe("cards serve listens on the profile's loopback url", () => {
  /** A port nothing listens on now. */
  const freePort = async (): Promise<number> => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    return port;
  };

  test('init --url, then serve and get with no flags meet; --port and non-loopback URLs do not move it', async () => {
    const box = sandbox();
    const servers: Awaited<ReturnType<typeof startInProcess>>[] = [];
    try {
      const port = await freePort();
      const env = { CARDS_CONFIG: join(box.dir, 'config.json') };
      const url = `http://localhost:${port}`;
      const init = await box.cards(['init', '--url', url, '--yes'], { env });
      assert.equal(init.status, 0, said(init));
      const shown = await box.cards(['config', '--json'], { env });
      const serve = shown.json<{ serve: Record<string, { value: unknown; source: string }> }>()
        .serve;
      assert.deepEqual(serve.port, { value: port, source: 'config' });
      assert.deepEqual(serve.host, { value: 'localhost', source: 'config' });
      // Empty CARDS_PORT and CARDS_HOST are unset, and keep the helper from adding flags.
      const server = await startInProcess({
        dir: box.dir,
        env: { ...env, CARDS_PORT: '', CARDS_HOST: '' },
        args: ['--quiet'],
      });
      servers.push(server);
      assert.equal(new URL(server.url).port, String(port));
      const made = await box.cards(['create', '--identity', 'pat', '--new-key', '--json'], { env });
      assert.equal(made.status, 0, said(made));
      const got = await box.cards(['get', made.json<{ id: string }>().id, '--json'], { env });
      assert.equal(got.status, 0, said(got));
      // An explicit flag wins over the profile.
      const flagged = await startInProcess({
        dir: box.dir,
        env: { ...env, CARDS_HOST: '' },
        args: ['--quiet', '--port', '0', '--db', join(box.dir, 'other.json')],
      });
      servers.push(flagged);
      assert.notEqual(new URL(flagged.url).port, String(port));
      // A profile URL that is not loopback http says nothing of where to listen.
      for (const remote of ['https://cards.example.com:9443', 'http://10.1.2.3:9000']) {
        const set = await box.cards(['config', 'set', 'url', remote], { env });
        assert.equal(set.status, 0, said(set));
        const other = await box.cards(['config', '--json'], { env });
        const defaults = other.json<{ serve: Record<string, { source: string }> }>().serve;
        assert.equal(defaults.port?.source, 'default', remote);
        assert.equal(defaults.host?.source, 'default', remote);
      }
    } finally {
      await Promise.all(servers.map((server) => server.dispose()));
      box.cleanup();
    }
  });
});

describe('a profile names files relative to its config file', () => {
  test('serviceKey, appKey, appConfig and db resolve against the config folder; inline keys stay', async () => {
    const box = sandbox();
    try {
      const cfgDir = join(box.dir, 'cfg');
      mkdirSync(cfgDir);
      const config = join(cfgDir, 'config.json');
      const profiles = {
        files: { serviceKey: 'keys/service.pub', appKey: 'keys/app.pem', db: 'stores/a.json' },
        inline: { serviceKey: 'MCowBQYDK2VwAyEAs4zRfF2kBQ5fRIvNoGGvDQUlS8Z2Y1k5Y3tYjUQk0A8=' },
        vendor: { appConfig: 'vendor/app.json' },
      };
      writeFileSync(config, JSON.stringify({ version: 1, profiles }));
      const show = async (profile: string) => {
        const shown = await box.cards(['config', '--json', '--profile', profile], {
          env: { CARDS_CONFIG: config },
        });
        assert.equal(shown.status, 0, said(shown));
        return shown.json<{ settings: Record<string, { value: string } | null> }>().settings;
      };
      const files = await show('files');
      assert.equal(files.serviceKey?.value, join(cfgDir, 'keys/service.pub'));
      assert.equal(files.db?.value, join(cfgDir, 'stores/a.json'));
      assert.equal(files.credentials?.value, `app-key ${join(cfgDir, 'keys/app.pem')}`);
      const inline = await show('inline');
      assert.equal(inline.serviceKey?.value, profiles.inline.serviceKey, 'an inline key is kept');
      const vendor = await show('vendor');
      assert.equal(vendor.credentials?.value, `app-config ${join(cfgDir, 'vendor/app.json')}`);
    } finally {
      box.cleanup();
    }
  });
});
