/**
 * What users of gh or the stripe CLI expect: shell completion generated from the
 * command tree and run by a real bash, `cards config set/use`, and `--debug` / CARDS_DEBUG=1
 * printing every HTTP exchange with the token redacted.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { said, type Sandbox } from './harness.js';
import { serverInSandbox, type SandboxServer } from './server-sandbox.js';

const run = promisify(execFile);

describe('completion, config set/use, --debug', { concurrency: true }, () => {
  let server: SandboxServer;
  let box: Sandbox;
  before(async () => ({ server, box } = await serverInSandbox()));
  after(() => Promise.all([server.dispose(), box.cleanup()]));

  test('cards completion bash completes commands, subcommands, flags and choices in bash', async () => {
    const script = await box.cards(['completion', 'bash']);
    assert.equal(script.status, 0, said(script));
    writeFileSync(join(box.dir, 'cards.bash'), script.stdout);
    // Not spawnSync: this file's server runs in the test process and must keep answering.
    const complete = async (...words: string[]): Promise<string[]> => {
      const { stdout } = await run(
        'bash',
        [
          '-c',
          `source ./cards.bash; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _cards; printf '%s\\n' "\${COMPREPLY[@]}"`,
        ],
        { cwd: box.dir, encoding: 'utf8' },
      );
      return stdout.split('\n').filter(Boolean);
    };
    assert.deepEqual(await complete('cards', 'rot'), ['rotate']);
    assert.deepEqual(await complete('cards', 'key', 'pu'), ['public']);
    assert.deepEqual(await complete('cards', 'key', 'p'), ['public', 'prune']);
    assert.deepEqual(await complete('cards', 'config', 'u'), ['use']);
    assert.deepEqual(await complete('cards', 'rotate', '--pr'), [
      '--profile',
      '--previous',
      '--prune',
    ]);
    assert.deepEqual(await complete('cards', 'search', '--compat', ''), ['service', 'virgil']);
    // The global flags complete after every command, as they are taken after it too.
    assert.deepEqual(await complete('cards', 'completion', ''), [
      'bash',
      'zsh',
      'fish',
      '--json',
      '--no-color',
      '--profile',
      '--debug',
      '--help',
    ]);
    assert.deepEqual(await complete('cards', 'get', '--js'), ['--json']);
    assert.deepEqual(await complete('cards', '--js'), ['--json']);

    for (const shell of ['zsh', 'fish']) {
      const other = await box.cards(['completion', shell]);
      assert.equal(other.status, 0, said(other));
      assert.match(other.stdout, /rotate/);
    }
    const fish = (await box.cards(['completion', 'fish'])).stdout;
    assert.match(fish, /-n '__fish_seen_subcommand_from key[^']*' -a public/);
    const bad = await box.cards(['completion', 'tcsh']);
    assert.equal(bad.status, 2, said(bad));
    assert.match(bad.stderr, /^error USAGE \(90001\): .*Allowed choices are bash, zsh, fish/m);
  });

  test('cards config set KEY VALUE and config use PROFILE', async () => {
    const env = { CARDS_CONFIG: join(box.dir, 'config-set.json') };
    const set = await box.cards(['config', 'set', 'identity', 'kim', '--json'], { env });
    assert.equal(set.status, 0, said(set));
    assert.equal(set.json<{ profile: string }>().profile, 'default');
    const db = await box.cards(['config', 'set', 'db', 'data/cards.json', '--profile', 'other'], {
      env,
    });
    assert.equal(db.status, 0, said(db));
    const file = JSON.parse(readFileSync(env.CARDS_CONFIG, 'utf8')) as {
      default: string;
      profiles: Record<string, Record<string, string>>;
    };
    assert.deepEqual(file.profiles, {
      default: { identity: 'kim' },
      other: { db: join(box.dir, 'data', 'cards.json') },
    });
    assert.equal(file.default, 'default');

    const use = await box.cards(['config', 'use', 'other'], { env });
    assert.equal(use.status, 0, said(use));
    const shown = await box.cards(['config', '--json'], { env: { ...env, CARDS_DB: undefined } });
    const config = shown.json<{
      activeProfile: string;
      settings: { db: { value: string; source: string } };
    }>();
    assert.equal(config.activeProfile, 'other');
    assert.deepEqual(config.settings.db, {
      value: join(box.dir, 'data', 'cards.json'),
      source: 'config',
    });

    const unknown = await box.cards(['config', 'use', 'nope'], { env });
    assert.equal(unknown.status, 2, said(unknown));
    assert.match(unknown.stderr, /CONFIG_INVALID.*No profile "nope"/);
    const badKey = await box.cards(['config', 'set', 'colour', 'red'], { env });
    assert.equal(badKey.status, 2, said(badKey));
    assert.match(badKey.stderr, /"colour" is not a setting/);

    // config set keeps a value as `cards init` does: a key file's name absolute, `~/` as a
    // shell reads it (HOME is the sandbox's folder), an inline key as is, a URL http(s).
    const inlineKey = 'MCowBQYDK2VwAyEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE=';
    for (const [key, value] of [
      ['service-key', 'keys/service.pem'],
      ['app-key', '~/app.pem'],
    ] as const)
      assert.equal(
        (await box.cards(['config', 'set', key, value, '--profile', 'p3'], { env })).status,
        0,
      );
    assert.equal(
      (await box.cards(['config', 'set', 'serviceKey', inlineKey, '--profile', 'p4'], { env }))
        .status,
      0,
    );
    const kept = JSON.parse(readFileSync(env.CARDS_CONFIG, 'utf8')) as {
      profiles: Record<string, Record<string, string>>;
    };
    assert.deepEqual(kept.profiles.p3, {
      serviceKey: join(box.dir, 'keys', 'service.pem'),
      appKey: join(box.dir, 'app.pem'),
    });
    assert.deepEqual(kept.profiles.p4, { serviceKey: inlineKey });
    for (const args of [
      ['config', 'set', 'url', 'ftp://cards.test'],
      ['init', '--profile', 'p5', '--url', 'ftp://cards.test', '--yes'],
    ]) {
      const refused = await box.cards(args, { env });
      assert.equal(refused.status, 2, said(refused));
      assert.match(refused.stderr, /"ftp:\/\/cards\.test" is not an http\(s\) URL/);
    }
  });

  test('--debug and CARDS_DEBUG=1 print each request and response, token redacted', async () => {
    const made = await box.cards(['create', '--identity', 'deb', '--new-key', '--debug', '--json']);
    assert.equal(made.status, 0, said(made));
    made.json(); // stdout stays one JSON document
    assert.match(made.stderr, /^> POST http:\/\/127\.0\.0\.1:\d+\/card\/v5$/m);
    assert.match(made.stderr, /^> authorization: Service <redacted>$/m);
    assert.match(made.stderr, /^< 201 \(\d+ ms\)$/m);
    assert.match(made.stderr, /^< \{"content_snapshot"/m);
    assert.doesNotMatch(made.stderr, /eyJ[\w-]+\.eyJ/, 'no token is printed');

    const viaEnv = await box.cards(['search', 'deb'], { env: { CARDS_DEBUG: '1' } });
    assert.equal(viaEnv.status, 0, said(viaEnv));
    assert.match(viaEnv.stderr, /^> POST .*\/card\/v5\/actions\/search$/m);
    assert.match(viaEnv.stderr, /^< 200 /m);
    const quiet = await box.cards(['search', 'deb']);
    assert.equal(quiet.stderr, '');
  });

  test('--debug escapes what a server sends: no raw control or bidi character reaches stderr', async () => {
    // A hostile or broken server: raw ESC and U+202E (right-to-left override) in its body.
    const hostile = createServer((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"code":10001,"message":"gone\u001b[2J\u202eexe.txt"}');
    });
    await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = hostile.address() as AddressInfo;
      const got = await box.cards([
        'get',
        'a'.repeat(64),
        '--url',
        `http://127.0.0.1:${port}`,
        '--token',
        'x',
        '--debug',
      ]);
      assert.notEqual(got.status, 0);
      assert.match(got.stderr, /gone\\x1b\[2J\\u202eexe\.txt/);
      // eslint-disable-next-line no-control-regex -- the test looks for raw control characters
      assert.doesNotMatch(got.stderr, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    } finally {
      hostile.close();
    }
  });
});
