/**
 * What a newcomer's second hour trips on, through `node bin/cards.js` against a real server on
 * port 0: a create that would start a second chain beside a live card, an empty identity to
 * search for, a --from file with blank lines and comments, and the hints of an address that
 * cannot be reached.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runCardsInProcess, said, type Sandbox } from './harness.js';
import { onTerminal } from './pty.js';
import { serverInSandbox, type SandboxServer } from './server-sandbox.js';

interface Found {
  results: { identity: string; chains: { id: string; state: string }[][] }[];
}

describe("a newcomer's second hour against cards serve", { concurrency: true }, () => {
  let server: SandboxServer;
  let box: Sandbox;
  before(async () => ({ server, box } = await serverInSandbox()));
  after(() => Promise.all([server.dispose(), box.cleanup()]));

  const chainsOf = async (identity: string) => {
    const found = await box.cards(['search', identity, '--json']);
    assert.equal(found.status, 0, said(found));
    return found.json<Found>().results[0]?.chains ?? [];
  };

  test('create for an identity with a live card is refused, naming the card and the ways on', async () => {
    const first = await box.cards(['create', '--identity', 'dora', '--new-key', '--json']);
    assert.equal(first.status, 0, said(first));
    const id = first.json<{ id: string }>().id;

    const again = await box.cards(['create', '--identity', 'dora', '--created-at', '1700000000']);
    assert.equal(again.status, 4, said(again));
    assert.match(again.stderr, /IDENTITY_HAS_CARD \(90020\)/);
    assert.ok(again.stderr.includes(id), 'the message names the live card');
    assert.match(again.stderr, /cards rotate --identity dora/);
    assert.match(again.stderr, new RegExp(`--previous ${id}`));
    assert.match(again.stderr, /--new-chain/);
    assert.deepEqual(
      (await chainsOf('dora')).map((chain) => chain.map((card) => card.id)),
      [[id]],
      'nothing was stored',
    );

    const json = await box.cards(['create', '--identity', 'dora', '--json', '--created-at', '1']);
    assert.equal(json.status, 4, said(json));
    assert.equal(json.json<{ error: { name: string } }>().error.name, 'IDENTITY_HAS_CARD');

    // Their own times: the same key, identity and second as the first card is the same snapshot
    // (SNAPSHOT_NOT_UNIQUE), and in-process commands often run within one second.
    const replaced = await box.cards([
      'create',
      ...['--identity', 'dora', '--previous', id, '--created-at', '1700000100', '--json'],
    ]);
    assert.equal(replaced.status, 0, said(replaced));
    const second = await box.cards([
      'create',
      ...['--identity', 'dora', '--new-chain', '--created-at', '1700000200', '--json'],
    ]);
    assert.equal(second.status, 0, said(second));
    assert.equal((await chainsOf('dora')).length, 2, 'a second chain, asked for');
  });

  test('an empty identity to search for is a usage error, not a token error', async () => {
    for (const args of [[''], ['alice', '']]) {
      const result = await box.cards(['search', ...args]);
      assert.equal(result.status, 2, said(result));
      assert.match(result.stderr, /USAGE \(90001\): An identity to search for cannot be empty/);
    }
  });

  test('search --from skips blank lines and # comments', async () => {
    const made = await box.cards(['create', '--identity', 'fern', '--new-key', '--json']);
    assert.equal(made.status, 0, said(made));
    writeFileSync(join(box.dir, 'who.txt'), '# who to look up\n\nfern\n   \n  # gone: gus\ngus\n');
    const found = await box.cards(['search', '--from', 'who.txt', '--json']);
    assert.equal(found.status, 0, said(found));
    const results = found.json<Found>().results;
    assert.deepEqual(
      results.map((r) => [r.identity, r.chains.length]),
      [
        ['fern', 1],
        ['gus', 0],
      ],
    );
  });

  test('hints that fit: https to the HTTP port, an unknown host; HOST:PORT is read as http://', async () => {
    const port = new URL(server.url).port;
    const tls = await box.cards(['search', 'alice', '--url', `https://127.0.0.1:${port}`]);
    assert.equal(tls.status, 6, said(tls));
    assert.match(tls.stderr, /does not speak TLS: .* use http:\/\/ in --url/);
    const unknown = await box.cards([
      'search',
      'alice',
      '--url',
      'http://no-such-host.invalid',
      '--token',
      't',
    ]);
    assert.equal(unknown.status, 6, said(unknown));
    assert.match(unknown.stderr, /host name in --url is not known here/);
    for (const url of [`127.0.0.1:${port}`, `localhost:${port}`]) {
      const bare = await box.cards(['search', 'alice', '--url', url, '--json']);
      assert.equal(bare.status, 0, said(bare));
    }
    // The same hints from the admin API's commands and the log's readers.
    for (const args of [['list'], ['status'], ['monitor', '--identity', 'alice']]) {
      const tlsTo = await box.cards([...args, '--url', `https://127.0.0.1:${port}`]);
      assert.equal(tlsTo.status, 6, said(tlsTo));
      assert.match(tlsTo.stderr, /does not speak TLS: .* use http:\/\/ in --url/, args[0]);
      const nowhere = await box.cards([...args, '--url', 'http://no-such-host.invalid']);
      assert.equal(nowhere.status, 6, said(nowhere));
      assert.match(nowhere.stderr, /host name in --url is not known here/, args[0]);
      assert.doesNotMatch(nowhere.stderr, /\(Error: /, args[0]);
    }
  });

  test('build --new-key says where the key went; keygen over a key points to rotate', async () => {
    const built = await box.cards(['build', '--identity', 'hana', '--new-key']);
    assert.equal(built.status, 0, said(built));
    assert.equal(JSON.parse(built.stdout).content_snapshot !== undefined, true, 'stdout: the card');
    assert.match(built.stderr, /^new key saved to .*\/keys\/hana\.pem$/m);
    const again = await box.cards(['keygen', '--identity', 'hana']);
    assert.equal(again.status, 4, said(again));
    assert.match(again.stderr, /FILE_EXISTS \(90003\): "hana" has a key in the keystore already/);
    assert.match(again.stderr, /`cards rotate --identity hana`/);
  });

  test('a mistyped PostgreSQL URL is refused as one (exit 9), never made a store file', async () => {
    for (const store of ['postgresql:/db', 'postgres:cards']) {
      const served = await box.cards(['serve', '--store', store, '--port', '0']);
      assert.equal(served.status, 9, said(served));
      assert.match(served.stderr, /STORE_URL_INVALID \(90012\): .* is not a PostgreSQL URL/);
    }
    assert.deepEqual(
      readdirSync(box.dir).filter((name) => name.startsWith('postgres')),
      [],
      'no file named after the URL',
    );
  });

  test("cards status: the server's state for scripts; exit 6 when nothing answers", async () => {
    await box.cards(['create', '--identity', 'ida', '--new-key']);
    const json = await box.cards(['status', '--json']);
    assert.equal(json.status, 0, said(json));
    const state = json.json<{
      url: string;
      reachable: boolean;
      cards: number;
      log: { origin: string; vkey: string; size: number } | null;
    }>();
    assert.equal(state.url, server.url);
    assert.equal(state.reachable, true);
    assert.ok(state.cards >= 1);
    assert.match(state.log?.vkey ?? '', /^cards\.local\/[0-9a-f]+\+[0-9a-f]{8}\+/);
    const text = await box.cards(['status']);
    assert.match(text.stdout, new RegExp(`^reachable +${server.url} `, 'm'));
    assert.match(text.stdout, /^log key +cards\.local\//m);
    const dead = await box.cards(['status', '--url', 'http://127.0.0.1:9', '--json']);
    assert.equal(dead.status, 6, said(dead));
  });

  test('cards open prints the page address, and opens it where there is a desktop', async () => {
    const bare = await box.cards(['open'], {
      env: { DISPLAY: undefined, WAYLAND_DISPLAY: undefined },
    });
    assert.equal(bare.status, 0, said(bare));
    assert.equal(bare.stdout.trim(), `${server.url}/`);
    // A desktop: xdg-open is this script, which writes down what it was asked to open.
    const bin = join(box.dir, 'desktop-bin');
    mkdirSync(bin);
    const opened = join(box.dir, 'opened.txt');
    writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\necho "$1" > ${opened}\n`, { mode: 0o755 });
    const desktop = await box.cards(['open'], {
      env: { DISPLAY: ':0', PATH: `${bin}:${process.env.PATH ?? ''}` },
    });
    assert.equal(desktop.status, 0, said(desktop));
    assert.match(desktop.stdout, /\(opened with xdg-open\)/);
    for (let i = 0; i < 100 && !existsSync(opened); i++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(readFileSync(opened, 'utf8').trim(), `${server.url}/`);
  });

  test('verify and monitor take the log key from CARDS_LOG_KEY or the profile', async () => {
    const made = await box.cards(['create', '--identity', 'jo', '--new-key', '--json']);
    const id = made.json<{ id: string }>().id;
    const vkey = (await box.cards(['status', '--json'])).json<{ log: { vkey: string } }>().log.vkey;
    const none = await box.cards(['verify', id]);
    assert.equal(none.status, 2, said(none));
    assert.match(none.stderr, /CARDS_LOG_KEY.*cards config set logKey/);
    const fromEnv = await box.cards(['verify', id, '--json'], { env: { CARDS_LOG_KEY: vkey } });
    assert.equal(fromEnv.status, 0, said(fromEnv));
    const config = join(box.dir, 'log-key-config.json');
    const env = { CARDS_CONFIG: config };
    const init = await box.cards(['init', '--profile', 'local', '--url', server.url], { env });
    assert.equal(init.status, 0, said(init));
    const set = await box.cards(['config', 'set', 'logKey', vkey], { env });
    assert.equal(set.status, 0, said(set));
    const fromProfile = await box.cards(['verify', id, '--json'], { env });
    assert.equal(fromProfile.status, 0, said(fromProfile));
    const monitored = await box.cards(['monitor', '--identity', 'jo', '--json'], { env });
    assert.equal(monitored.status, 0, said(monitored));
  });

  test('key prune removes backups without rotating; unregister removes them with the key', async () => {
    const made = await box.cards(['create', '--identity', 'kim', '--new-key', '--json']);
    assert.equal(made.status, 0, said(made));
    const backupsOf = () =>
      readdirSync(join(box.home, 'keys')).filter((name) => /^kim\.pem\..*\.bak$/.test(name));
    for (let i = 0; i < 2; i++) {
      const rotated = await box.cards(['rotate', '--identity', 'kim', '--json']);
      assert.equal(rotated.status, 0, said(rotated));
    }
    assert.equal(backupsOf().length, 2);
    const key = readFileSync(join(box.home, 'keys', 'kim.pem'), 'utf8');
    const pruned = await box.cards(['key', 'prune', '--identity', 'kim', '--json']);
    assert.equal(pruned.status, 0, said(pruned));
    assert.equal(pruned.json<{ pruned: string[] }>().pruned.length, 2);
    assert.deepEqual(backupsOf(), []);
    assert.equal(readFileSync(join(box.home, 'keys', 'kim.pem'), 'utf8'), key, 'the key stays');

    const rotated = await box.cards(['rotate', '--identity', 'kim', '--json']);
    assert.equal(rotated.status, 0, said(rotated));
    assert.equal(backupsOf().length, 1);
    const gone = await box.cards(['unregister', '--identity', 'kim', '--yes', '--json']);
    assert.equal(gone.status, 0, said(gone));
    assert.equal(gone.json<{ backupsRemoved: string[] }>().backupsRemoved.length, 1);
    assert.deepEqual(backupsOf(), []);
    assert.equal(existsSync(join(box.home, 'keys', 'kim.pem')), false);
  });

  test('list --limit is checked as the server checks it, before anything is sent', async () => {
    for (const limit of ['0', '1001', '1e3', '-5']) {
      const listed = await box.cards(['list', '--limit', limit]);
      assert.equal(listed.status, 2, said(listed));
      assert.match(listed.stderr, /USAGE \(90001\): --limit must be an integer from 1 to 1000/);
    }
    const most = await box.cards(['list', '--limit', '1000', '--json']);
    assert.equal(most.status, 0, said(most));
  });

  test("--extra FIELD=TEXT adds fields to the owner's extras; JSON for no signer is refused", async () => {
    const built = await box.cards([
      'build',
      '--identity',
      'lea',
      '--new-key',
      '--extra',
      'device=phone',
      '--extra',
      'os=ios 17',
      '--extra',
      '__proto__=x',
      '--json',
    ]);
    assert.equal(built.status, 0, said(built));
    const card = built.json<{ card: { signatures: { signer: string; snapshot?: string }[] } }>()
      .card;
    const self = card.signatures.find((s) => s.signer === 'self');
    assert.deepEqual(
      JSON.parse(Buffer.from(self?.snapshot ?? '', 'base64').toString('utf8')),
      JSON.parse('{"device":"phone","os":"ios 17","__proto__":"x"}'),
    );
    const both = await box.cards(['build', '--identity', 'lea', '--extra', 'a=1', '--extra', '{}']);
    assert.equal(both.status, 2, said(both));
    assert.match(both.stderr, /owner's extras are given twice/);
    const json = await box.cards(['build', '--identity', 'lea', '--extra', 'app={"r":1}']);
    assert.equal(json.status, 2, said(json));
    assert.match(json.stderr, /names no --signer app=KEYFILE/);
  });

  test('monitor prints the entries it read as people count them', async () => {
    const vkey = (await box.cards(['status', '--json'])).json<{ log: { vkey: string } }>().log.vkey;
    const env = { CARDS_LOG_KEY: vkey };
    const made = await box.cards(['create', '--identity', 'mo', '--new-key', '--json']);
    // The card enters the log with its batch (within --log-interval): verify waits for its proof.
    const logged = await box.cards(['verify', made.json<{ id: string }>().id], { env });
    assert.equal(logged.status, 0, said(logged));
    const first = await box.cards(['monitor', '--identity', 'mo'], { env });
    assert.equal(first.status, 0, said(first));
    // Other tests add cards meanwhile: the next run starts right after the last entry read.
    const last = Number(/: entries 0–(\d+), 1 card\(s\)/.exec(first.stdout)?.[1]);
    assert.ok(last >= 0, first.stdout);
    const again = await box.cards(['monitor', '--identity', 'mo'], { env });
    const next =
      /: (?:no new entries \(the log holds (\d+)\)|entry (\d+)|entries (\d+)–\d+), 0 card/.exec(
        again.stdout,
      );
    assert.ok(next, again.stdout);
    assert.equal(Number(next[1] ?? next[2] ?? next[3]), last + 1);
  });

  test('cards import with no file on a terminal says how to use it instead of waiting', async () => {
    const run = onTerminal(['import'], { cwd: box.dir, env: box.env });
    const { status, screen } = await run.exited;
    assert.equal(status, 2, screen);
    assert.match(screen, /USAGE \(90001\): import needs a dump FILE, or a dump piped on stdin/);
  });

  test('export and import of a store a server holds point to --url, and leave no file', async () => {
    if (server.store !== undefined) return; // a PostgreSQL store is shared, never locked
    const store = server.paths.store;
    const exported = await box.cards(['export', '--store', store, '--out', 'held.ndjson']);
    assert.notEqual(exported.status, 0, said(exported));
    assert.match(
      exported.stderr,
      /STORE_LOCKED \(90008\)[^\n]*\n +go through that server instead: --url/,
    );
    assert.equal(existsSync(join(box.dir, 'held.ndjson')), false, 'no --out file left behind');
    writeFileSync(join(box.dir, 'one.ndjson'), '');
    const imported = await box.cards(['import', 'one.ndjson', '--store', store]);
    assert.match(imported.stderr, /STORE_LOCKED \(90008\)[^\n]*\n +go through that server instead/);
    // To stdout as to --out, each naming the address of the server that holds the store.
    const piped = await box.cards(['export', '--store', store]);
    assert.equal(piped.status, 1, said(piped));
    for (const run of [exported, imported, piped])
      assert.ok(
        run.stderr.includes(`go through that server instead: --url ${server.url} `),
        run.stderr,
      );
  });

  test('export and import that find the server holding ./cards.json name it in their summary', async () => {
    // No URL or --db anywhere, run in the server's folder: its ./cards.json names the server.
    const env = { ...box.env };
    delete env.CARDS_URL;
    delete env.CARDS_DB;
    const here = (args: string[]) => runCardsInProcess(args, { cwd: server.dir, env });
    const piped = await here(['export']);
    assert.equal(piped.status, 0, said(piped));
    assert.match(piped.stderr, new RegExp(`^exported \\d+ cards? from ${server.url}\n`));
    writeFileSync(join(box.dir, 'found.ndjson'), piped.stdout);
    const json = await here(['export', '--out', join(box.dir, 'found2.ndjson'), '--json']);
    assert.equal(json.json<{ from: string }>().from, server.url);
    const imported = await here(['import', join(box.dir, 'found.ndjson'), '--append', '--json']);
    assert.equal(imported.status, 0, said(imported));
    assert.equal(imported.json<{ into: string }>().into, server.url);
  });

  test('a dump import refuses a line that is no record as IMPORT_INVALID, leaving no new store', async () => {
    const header = JSON.stringify({ format: 'cards-dump', version: 1, secrets: {} });
    for (const [name, dump] of [
      ['bad-id', '{"id":"zz"}\n'],
      ['not-json', 'garbage\n'],
      ['serve-dump', `${header}\n`],
    ] as const) {
      const store = join(box.dir, `${name}.json`);
      const run = await box.cards(['import', '--store', store], { input: dump });
      assert.equal(run.status, 4, said(run));
      assert.match(run.stderr, /IMPORT_INVALID \(30102\): Import line 1 /);
      assert.match(run.stderr, /cards serve --import FILE/);
      assert.deepEqual(
        readdirSync(box.dir).filter((file) => file.startsWith(name)),
        [],
        `${name}: no store made`,
      );
    }
    // Through the server, the same next step.
    writeFileSync(join(box.dir, 'serve.dump'), `${header}\n`);
    const served = await box.cards(['import', join(box.dir, 'serve.dump'), '--append']);
    assert.equal(served.status, 4, said(served));
    assert.match(
      served.stderr,
      /IMPORT_INVALID \(30102\)[^\n]*\n +import what .*cards serve --import FILE/,
    );
  });

  test("the local store's credentials go only to the server holding it; no --url finds it", async () => {
    const other = await serverInSandbox({ args: ['--require-admin-token'] });
    try {
      // The same sandbox's store (CARDS_DB), another server: nothing of the store is sent.
      const listed = await box.cards(['list', '--url', other.server.url]);
      assert.notEqual(listed.status, 0, said(listed));
      assert.doesNotMatch(listed.stderr, /ADMIN_TOKEN_INVALID|came from the token file/);
      assert.ok(
        listed.stderr.includes(
          `no admin token was sent: the token file ${server.paths.adminToken} goes only to the server holding its store, ${server.url}`,
        ),
        said(listed),
      );
      const got = await box.cards(['search', 'alice', '--url', other.server.url]);
      assert.equal(got.status, 7, said(got));
      assert.match(got.stderr, new RegExp(`only for the server holding that store, ${server.url}`));
      // No URL anywhere: the server holding the store in the folder is found.
      const found = await box.cards(['status', '--json'], { env: { CARDS_URL: undefined } });
      assert.equal(found.status, 0, said(found));
      assert.equal(found.json<{ url: string }>().url, server.url);
    } finally {
      await Promise.all([other.server.dispose(), other.box.cleanup()]);
    }
  });

  test('admin commands say what is missing: the admin API (--no-admin), or the admin token', async () => {
    const bare = await serverInSandbox({ args: ['--no-admin'] });
    const guarded = await serverInSandbox({ args: ['--require-admin-token'] });
    try {
      for (const args of [['faults', 'list'], ['requests'], ['snapshot', 'save', 'x']]) {
        const run = await bare.box.cards(args);
        assert.equal(run.status, 2, said(run));
        assert.match(run.stderr, /has no admin API .*--no-admin/, args[0]);
        assert.doesNotMatch(run.stderr, /base address/, args[0]);
      }
      const anonymous = await guarded.box.cards(['list', '--url', guarded.server.url], {
        env: { CARDS_DB: join(guarded.box.dir, 'elsewhere.json') },
      });
      assert.equal(anonymous.status, 7, said(anonymous));
      assert.match(anonymous.stderr, /ADMIN_AUTH_MISSING[^\n]*\n +pass --admin-token TOKEN/);
    } finally {
      await Promise.all([bare.server.dispose(), bare.box.cleanup()]);
      await Promise.all([guarded.server.dispose(), guarded.box.cleanup()]);
    }
  });

  test('a service that answers with a failure is not called "not running"', async () => {
    const other = await serverInSandbox();
    try {
      const made = await other.box.cards(['create', '--identity', 'una', '--new-key', '--json']);
      const id = made.json<{ id: string }>().id;
      const fault = await other.box.cards([
        'faults',
        'add',
        '--route',
        'getCard',
        '--error',
        'STORE_UNAVAILABLE',
        '--count',
        '1',
      ]);
      assert.equal(fault.status, 0, said(fault));
      const failed = await other.box.cards(['get', id]);
      assert.equal(failed.status, 6, said(failed));
      assert.match(failed.stderr, /running but failed to answer/);
      assert.doesNotMatch(failed.stderr, /is the service running\?/);
      // The same through a command that words the client's error its own way.
      const rule = { route: 'createCard', error: 'STORE_UNAVAILABLE', count: 1 };
      await fetch(`${other.server.url}/_cards/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(rule),
      });
      const seedFile = join(other.box.dir, 'one.json');
      writeFileSync(seedFile, JSON.stringify({ version: 1, identities: [{ identity: 'vic' }] }));
      const seeded = await other.box.cards(['seed', seedFile]);
      assert.equal(seeded.status, 6, said(seeded));
      assert.match(seeded.stderr, /running but failed to answer/);
      assert.doesNotMatch(seeded.stderr, /is the service running\?/);
    } finally {
      await Promise.all([other.server.dispose(), other.box.cleanup()]);
    }
  });
});
