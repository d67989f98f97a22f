/**
 * Files in a folder other users may write: a shared /tmp, a CI workspace.
 *
 * Files replaced whole (temporary file, fsync, rename). Another user who makes, ahead of time, the temporary name a
 * writer of this process would take (`.<name>.<pid>.tmp`: a pid is public) gets nothing: not
 * the secret written (a key, the admin token of a profile, a dump's private keys) in a file of
 * theirs that then takes the name with their owner and mode, nor a file of ours overwritten
 * through a link. Each file written is ours, a regular file of mode 0600, and what was planted
 * is as it was. The commands run in this process, so the planted names carry its pid.
 *
 * The secrets `cards serve` keeps beside a store (its service key, app key, admin token), found
 * there already: one another user made (so knows: an app key of theirs would have the server
 * trust every token they mint), or one others may write, is refused at start (USAGE, naming
 * the file), the server never listening. And what `cards serve` makes (its store's folders, the
 * log's) is writable by no other user whatever the umask.
 */
import assert from 'node:assert/strict';
import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { sandbox } from '../cli/harness.js';
import { startInProcess } from '../helpers/in-process-server.js';
import { makeTempDir, runServeToExit, startServer } from '../helpers/server.js';
import { makeCard } from '../http/card-kit.js';
import { postCard } from '../helpers/post-card.js';
import { generatePrivateKey } from '../../src/crypto/keys.js';

const folders: string[] = [];
after(() => {
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

/** A folder every user may write (mode 0777, as a shared workspace), holding a file of ours. */
function sharedFolder(): { dir: string; victim: string } {
  const dir = mkdtempSync(join(tmpdir(), 'cards-shared-'));
  folders.push(dir);
  chmodSync(dir, 0o777);
  const victim = join(dir, 'notes.txt');
  writeFileSync(victim, 'a file of ours\n', { mode: 0o600 });
  return { dir, victim };
}

/** The user `nobody`: the other user, when the tests run as root. */
const OTHER_UID = 65534;

/**
 * What another user leaves under the temporary name this process would use for `path` if the
 * name could be guessed: a file of theirs anyone may write, or a link to `victim`.
 */
function plant(path: string, kind: 'file' | 'link', victim: string): string {
  const name = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  if (kind === 'link') {
    symlinkSync(victim, name);
    return name;
  }
  writeFileSync(name, '');
  chmodSync(name, 0o666);
  if (process.getuid?.() === 0) chownSync(name, OTHER_UID, OTHER_UID);
  return name;
}

/** `path` is a regular file of this user, mode 0600, holding `holds`. */
function assertOurs(path: string, holds: RegExp): void {
  const stat = lstatSync(path);
  assert.ok(stat.isFile(), `${path} is a regular file, not a link`);
  assert.equal(stat.mode & 0o777, 0o600, `${path} mode ${(stat.mode & 0o777).toString(8)}`);
  assert.equal(stat.uid, process.getuid?.() ?? stat.uid, `${path} is ours`);
  assert.match(readFileSync(path, 'utf8'), holds);
}

/** What was planted is as it was: the other user's file empty, our file through the link unchanged. */
function assertUntouched(planted: string, kind: 'file' | 'link', victim: string): void {
  const stat = lstatSync(planted);
  if (kind === 'link') assert.ok(stat.isSymbolicLink(), 'the planted link is still there');
  else assert.equal(stat.size, 0, 'nothing was written into the planted file');
  assert.equal(readFileSync(victim, 'utf8'), 'a file of ours\n', 'the file the link names');
}

for (const kind of ['file', 'link'] as const) {
  test(`keygen --out --force in a shared folder: a planted ${kind} under the temporary name gets nothing`, async () => {
    const { dir, victim } = sharedFolder();
    const box = sandbox();
    try {
      const out = join(dir, 'alice.pem');
      assert.equal((await box.cards(['keygen', '--identity', 'alice', '--out', out])).status, 0);
      const planted = plant(out, kind, victim);
      const replaced = await box.cards(['keygen', '--identity', 'alice', '--out', out, '--force']);
      assert.equal(replaced.status, 0, replaced.stderr);
      assertOurs(out, /^-----BEGIN PRIVATE KEY-----\n/);
      assertUntouched(planted, kind, victim);
    } finally {
      box.cleanup();
    }
  });

  test(`config set in a shared CARDS_HOME: a planted ${kind} under the temporary name gets nothing`, async () => {
    const { dir, victim } = sharedFolder();
    const home = join(dir, 'home');
    mkdirSync(home, { mode: 0o777 });
    chmodSync(home, 0o777);
    const box = sandbox({ CARDS_HOME: home });
    try {
      const planted = plant(join(home, 'config.json'), kind, victim);
      const set = await box.cards(['config', 'set', 'adminToken', 'cards_admin_secret']);
      assert.equal(set.status, 0, set.stderr);
      assertOurs(join(home, 'config.json'), /cards_admin_secret/);
      assertUntouched(planted, kind, victim);
    } finally {
      box.cleanup();
    }
  });

  test(`--export-on-exit in a shared folder: a planted ${kind} under the temporary name gets nothing`, async () => {
    const { dir, victim } = sharedFolder();
    const dump = join(dir, 'dump.ndjson');
    const server = await startInProcess({ args: ['--quiet', '--export-on-exit', dump] });
    try {
      const planted = plant(dump, kind, victim);
      await server.stop();
      assertOurs(dump, /-----BEGIN PRIVATE KEY-----/);
      assertUntouched(planted, kind, victim);
      assert.deepEqual(
        readdirSync(dir).filter((name) => name.endsWith('.tmp') && name !== basename(planted)),
        [],
        'no temporary file left',
      );
    } finally {
      await server.dispose();
    }
  });
}

const SECRETS: readonly (readonly [string, () => string])[] = [
  ['cards.json.service-key.pem', () => generatePrivateKey().toPem()],
  ['cards.json.app-key.pem', () => generatePrivateKey().toPem()],
  ['cards.json.admin-token', () => 'cards_admin_known-to-them\n'],
];

for (const [name, make] of SECRETS)
  for (const whose of ['another user’s', 'ours, writable by all'] as const) {
    const needsRoot = whose === 'another user’s' && process.getuid?.() !== 0;
    test(
      `cards serve refuses a ${name} beside the store that is ${whose}`,
      { skip: needsRoot ? 'making a file of another user needs root' : false },
      async () => {
        const { dir } = sharedFolder();
        const planted = join(dir, name);
        const text = make();
        writeFileSync(planted, text);
        if (whose === 'another user’s') {
          chmodSync(planted, 0o644);
          chownSync(planted, OTHER_UID, OTHER_UID);
        } else chmodSync(planted, 0o666);
        const started = await runServeToExit(
          ['--port', '0', '--db', join(dir, 'cards.json'), '--quiet'],
          { cwd: dir, process: true, timeoutMs: 20_000 },
        );
        assert.equal(started.code, 2, `refused, not served: ${started.stdout}${started.stderr}`);
        assert.match(started.stderr, /USAGE/);
        assert.ok(started.stderr.includes(planted), started.stderr);
        // The next step fits the case: only a change of owner makes another user's file ours.
        assert.ok(
          started.stderr.includes(
            whose === 'another user’s'
              ? `chown ${process.getuid?.()} ${planted}`
              : `chmod 600 ${planted}`,
          ),
          started.stderr,
        );
        assert.doesNotMatch(started.stdout, /listening on/);
        assert.equal(readFileSync(planted, 'utf8'), text, 'the planted file as it was');
      },
    );
  }

/** Every folder and file under `dir`, with its mode. */
function tree(dir: string): [string, number][] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((name) => [
    name,
    statSync(join(dir, name)).mode & 0o777,
  ]);
}

test('under umask 000, nothing cards serve makes is writable by other users', async (t) => {
  const dir = makeTempDir();
  const db = join(dir, 'made', 'by', 'serve', 'cards.json');
  // The server process inherits this process's umask as it is spawned.
  const umask = process.umask(0);
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer({ dir, args: ['--quiet', '--db', db, '--log-interval', '50'] });
  } finally {
    process.umask(umask);
  }
  t.after(() => server.dispose());
  await postCard(server, 'alice', makeCard('alice').raw);
  // Wait for the log to write its first tile (its folders are made then).
  while (!readdirSync(join(dir, 'made'), { recursive: true }).some((n) => /tile/.test(String(n))))
    await new Promise((resolve) => setTimeout(resolve, 50));
  const made: [string, number][] = [['.', statSync(join(dir, 'made')).mode & 0o777]];
  const writable = [...made, ...tree(join(dir, 'made'))].filter(([, mode]) => (mode & 0o022) !== 0);
  assert.deepEqual(writable, [], 'folders and files others may write');
});
