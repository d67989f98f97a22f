/**
 * The JSON engine's files beside its store (src/store/json, named for the CLI by src/server):
 * the paths of its companions, the lock it holds while open (one server per store), and the
 * private key files.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { CardsError } from '../../src/core/errors.js';
import { generatePrivateKey } from '../../src/crypto/keys.js';
import { fileHome } from '../../src/server/file-home.js';
import { openEngine } from '../../src/server/open-engine.js';
import { loadOrCreatePrivateKey, readPrivateKeyFile } from '../../src/io/key-files.js';
import { acquireLock } from '../../src/store/json/lock.js';
import { storePaths } from '../../src/store/json/paths.js';
import { codeOf } from '../helpers/code-of.js';

const root = mkdtempSync(join(tmpdir(), 'cards-home-test-'));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const newDb = (): string => join(root, `s${n++}`, 'cards.json');
const deadPid = (): number => spawnSync(process.execPath, ['-e', '0']).pid as number;

describe('server home: files beside the store', () => {
  test('keys and lock share the store file name; every spelling finds one home', () => {
    const dir = join(root, `h${n++}`);
    mkdirSync(dir);
    const home = fileHome('data.json', dir);
    assert.deepEqual(home, {
      store: join(dir, 'data.json'),
      serviceKey: join(dir, 'data.json.service-key.pem'),
      appKey: join(dir, 'data.json.app-key.pem'),
      adminToken: join(dir, 'data.json.admin-token'),
      lock: join(dir, 'data.json.lock'),
      address: join(dir, 'data.json.address'),
      logKey: join(dir, 'data.json.log-key.pem'),
      logDir: join(dir, 'data.json.log'),
    });
    symlinkSync(dir, join(root, `link${n}`));
    assert.deepEqual(fileHome(join(root, `link${n}`, 'data.json')), home, 'through a symlink');
    assert.equal(storePaths('data.json', dir).store, home.store, 'the store agrees');
  });

  test('while open the lock holds our pid; close folds the journal and removes the lock', async () => {
    const db = newDb();
    const opened = await openEngine(db);
    assert.equal(readFileSync(fileHome(db).lock, 'utf8').split('\n')[0], String(process.pid));
    await opened.close();
    assert.ok(!existsSync(fileHome(db).lock) && !existsSync(storePaths(db).journal));
  });

  test('a store that cannot be opened leaves no lock behind', async () => {
    for (const [name, write] of [
      ['a corrupt store file', (db: string) => writeFileSync(db, '{"format": "cards-store"')],
      [
        'a newer store file',
        (db: string) => writeFileSync(db, '{"format":"cards-store","version":2,"cards":[]}'),
      ],
      [
        'a journal line that does not parse',
        (db: string) => writeFileSync(storePaths(db).journal, '{not json}\n'),
      ],
    ] as const) {
      const db = newDb();
      mkdirSync(join(db, '..'), { recursive: true });
      write(db);
      assert.equal(await codeOf(() => openEngine(db)), 'STORE_CORRUPT', name);
      assert.ok(!existsSync(fileHome(db).lock), `${name}: lock released`);
    }
  });
});

describe('server home: one server per store', () => {
  test('a second open in this process, or a live pid in the lock, is STORE_LOCKED', async () => {
    const db = newDb();
    const opened = await openEngine(db);
    assert.equal(await codeOf(() => openEngine(db)), 'STORE_LOCKED');
    await opened.close();
    const lock = fileHome(db).lock;
    writeFileSync(lock, `${process.ppid}\n`);
    assert.equal(await codeOf(() => openEngine(db)), 'STORE_LOCKED');
    assert.equal(readFileSync(lock, 'utf8'), `${process.ppid}\n`, 'a live lock is left alone');
  });

  test('a dead pid, garbage, or our own recycled pid in the lock is taken over', async () => {
    for (const content of [`${deadPid()}\n`, 'garbage', `${process.pid}\n`]) {
      const db = newDb();
      mkdirSync(join(db, '..'), { recursive: true });
      writeFileSync(fileHome(db).lock, content);
      const opened = await openEngine(db);
      assert.equal(readFileSync(fileHome(db).lock, 'utf8').split('\n')[0], String(process.pid));
      await opened.close();
    }
  });

  test('a lock whose pid now names another live process is stale', async (t) => {
    if (!existsSync('/proc/self/stat')) return t.skip('needs /proc');
    // A live process that is not the lock's writer: it started after the lock was written
    // (its start time differs), or the lock was written on another boot.
    const other = spawn('sleep', ['30']);
    t.after(() => other.kill('SIGKILL'));
    await new Promise((resolve) => other.once('spawn', resolve));
    const pid = other.pid as number;
    const started = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[19];
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    for (const [content, expected] of [
      [`${pid}\nstart ${Number(started) - 1}\nboot ${boot}\n`, 'taken over'],
      [`${pid}\nstart ${started}\nboot 00000000-0000-0000-0000-000000000000\n`, 'taken over'],
      [`${pid}\nstart ${started}\nboot ${boot}\n`, 'STORE_LOCKED'],
      [`${pid}\n`, 'STORE_LOCKED'], // an old lock (pid only): its pid is alive, so it holds
    ] as const) {
      const db = newDb();
      mkdirSync(join(db, '..'), { recursive: true });
      writeFileSync(fileHome(db).lock, content);
      let outcome: string = 'taken over';
      try {
        await (await openEngine(db)).close();
      } catch (err) {
        outcome = err instanceof CardsError ? err.code : String(err);
      }
      assert.equal(outcome, expected, JSON.stringify(content));
    }
  });

  test('a lock whose owner was killed and not yet reaped (a zombie) is taken over', async (t) => {
    if (!existsSync('/proc/self/stat')) return t.skip('needs /proc');
    // The owner's parent never waits: `sh` becomes `sleep 30` after starting it, so once
    // killed it stays a zombie (state Z), its pid alive to kill(pid, 0), until the parent ends.
    const parent = spawn('sh', ['-c', 'sleep 30 & echo $!; exec sleep 30']);
    t.after(() => parent.kill('SIGKILL'));
    const pid = Number(
      await new Promise<string>((resolve) => parent.stdout.once('data', (d) => resolve(String(d)))),
    );
    const started = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[19];
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    process.kill(pid, 'SIGKILL');
    while (!readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z '))
      await new Promise((resolve) => setTimeout(resolve, 10));
    for (const content of [`${pid}\nstart ${started}\nboot ${boot}\n`, `${pid}\n`]) {
      const db = newDb();
      mkdirSync(join(db, '..'), { recursive: true });
      writeFileSync(fileHome(db).lock, content);
      const opened = await openEngine(db);
      assert.equal(readFileSync(fileHome(db).lock, 'utf8').split('\n')[0], String(process.pid));
      await opened.close();
    }
  });

  test('a pid-only lock naming a live process that is no server: the refusal names the file and how to remove it', async (t) => {
    if (!existsSync('/proc/self/stat')) return t.skip('needs /proc');
    const other = spawn('sleep', ['30']);
    t.after(() => other.kill('SIGKILL'));
    await new Promise((resolve) => other.once('spawn', resolve));
    const db = newDb();
    mkdirSync(join(db, '..'), { recursive: true });
    const lock = fileHome(db).lock;
    writeFileSync(lock, `${other.pid}\n`);
    const err = await openEngine(db).then(
      () => assert.fail('opened'),
      (e: unknown) => e as CardsError,
    );
    assert.equal(err.code, 'STORE_LOCKED');
    assert.ok(err.message.includes(lock), err.message);
    assert.doesNotMatch(err.message, /Another server/);
    assert.ok(err.hint?.includes(`rm '${lock}'`), err.hint);
    // A command line with the word `serve` that is not `cards serve` proves nothing either
    // (`hugo serve`, `npx serve`, `cards witness serve`); one that is `cards serve` is a server's.
    const idle = 'setTimeout(() => {}, 30000)';
    for (const [args, server] of [
      [['-e', idle, 'serve'], false],
      [['-e', idle, '/usr/bin/cards', 'witness', 'serve'], false],
      [['-e', idle, '/usr/bin/cards', '--json', 'serve', '--port', '0'], true],
      [['-e', idle, '/opt/cards/bin/cards.js', 'serve'], true],
    ] as const) {
      const holder = spawn(process.execPath, args);
      t.after(() => holder.kill('SIGKILL'));
      await new Promise((resolve) => holder.once('spawn', resolve));
      writeFileSync(lock, `${holder.pid}\n`);
      const refused = await openEngine(db).then(
        () => assert.fail('opened'),
        (e: unknown) => e as CardsError,
      );
      assert.equal(refused.code, 'STORE_LOCKED');
      const said = `${args.join(' ')}: ${refused.message} ${refused.hint}`;
      if (server) {
        assert.match(refused.message, /^Another server \(pid \d+\)/, said);
      } else {
        assert.doesNotMatch(refused.message, /Another server/, said);
        assert.ok(refused.hint?.includes(`rm '${lock}'`), said);
      }
      // A witness's folder is held by `cards witness serve` alone.
      const witnessLock = join(root, `w${n++}.lock`);
      writeFileSync(witnessLock, `${holder.pid}\n`);
      const witness = await acquireLock(witnessLock, root, '--dir', undefined, 'witness serve')
        .then(() => assert.fail('locked'))
        .catch((e: unknown) => e as CardsError);
      const isWitness = (args as readonly string[]).includes('witness');
      assert.equal(/^Another server/.test(witness.message), isWitness, witness.message);
      holder.kill('SIGKILL');
    }
    // A lock this process holds is a server's: the plain refusal, naming the lock too.
    writeFileSync(lock, `${process.pid}\n`);
    const held = await openEngine(db);
    t.after(() => held.close());
    const again = await openEngine(db).then(
      () => assert.fail('opened twice'),
      (e: unknown) => e as CardsError,
    );
    assert.match(
      again.message,
      /^Another server \(pid \d+\) is using the store .* \(its lock: .*\)\.$/,
    );
  });

  test('the lock records pid, process start time and boot id; old readers still see the pid', async (t) => {
    if (!existsSync('/proc/self/stat')) return t.skip('needs /proc');
    const db = newDb();
    const opened = await openEngine(db);
    const lines = readFileSync(fileHome(db).lock, 'utf8').split('\n');
    assert.equal(Number.parseInt(lines.join('\n'), 10), process.pid, 'parseInt of the whole file');
    assert.match(lines[1] ?? '', /^start \d+$/);
    assert.match(lines[2] ?? '', /^boot [0-9a-f-]{36}$/);
    await opened.close();
  });

  test('servers racing for one stale lock: exactly one wins', async () => {
    const db = newDb();
    mkdirSync(join(db, '..'), { recursive: true });
    const lock = fileHome(db).lock;
    writeFileSync(lock, `${deadPid()}\n`);
    const lockModule = new URL('../../src/store/json/lock.js', import.meta.url).href;
    // A winner holds the lock until every racer has said how it fared (its stdin ends then),
    // however slowly a loaded host starts them: a lock released early could be won again.
    const script = `
      const { acquireLock } = await import(${JSON.stringify(lockModule)});
      try {
        const held = await acquireLock(${JSON.stringify(lock)}, 'x');
        console.log('won');
        process.stdin.resume();
        await new Promise((r) => process.stdin.on('end', r));
        await held.release();
      } catch (err) { console.log(err.code); }`;
    const children = Array.from({ length: 6 }, () =>
      spawn(process.execPath, ['--input-type=module', '-e', script]),
    );
    const closed = children.map((child) => new Promise((r) => child.once('close', r)));
    const said = children.map(
      (child) =>
        new Promise<string>((resolve) => {
          let out = '';
          child.stdout.on('data', (d: Buffer) => {
            out += d.toString();
            if (out.includes('\n')) resolve(out.trim());
          });
          child.on('close', () => resolve(out.trim()));
        }),
    );
    const outcomes = await Promise.all(said);
    for (const child of children) child.stdin.end();
    await Promise.all(closed);
    assert.equal(outcomes.filter((o) => o === 'won').length, 1, outcomes.join(','));
    assert.equal(outcomes.filter((o) => o === 'STORE_LOCKED').length, 5, outcomes.join(','));
  });
});

describe('private key files: the one reader', () => {
  test('PEM or base64 DER; a warning when others can read it', () => {
    const dir = join(root, `k${n++}`);
    mkdirSync(dir);
    const key = generatePrivateKey();
    for (const [file, text] of [
      ['k.pem', key.toPem()],
      ['k.b64', key.toBase64()],
    ] as const) {
      const path = join(dir, file);
      writeFileSync(path, text, { mode: 0o600 });
      chmodSync(path, 0o600);
      const read = readPrivateKeyFile(path);
      assert.equal(read.key.publicKey.toBase64(), key.publicKey.toBase64());
      assert.equal(read.warning, undefined, `${file}: 0600 is private`);
      chmodSync(path, 0o644);
      assert.match(readPrivateKeyFile(path).warning ?? '', /read by other users \(mode 644\)/);
    }
  });

  test('missing: FILE_NOT_FOUND; a folder: USAGE; not a key: KEY_FORMAT naming the file', async () => {
    const dir = join(root, `k${n++}`);
    mkdirSync(dir);
    writeFileSync(join(dir, 'bad.pem'), 'not a key');
    assert.equal(await codeOf(() => readPrivateKeyFile(join(dir, 'nope.pem'))), 'FILE_NOT_FOUND');
    assert.equal(await codeOf(() => readPrivateKeyFile(dir)), 'USAGE');
    assert.throws(
      () => readPrivateKeyFile(join(dir, 'bad.pem')),
      (err: CardsError) => err.code === 'KEY_FORMAT' && err.message.includes('bad.pem'),
    );
  });

  test('loadOrCreatePrivateKey makes a 0600 key once, then reads the same key', async () => {
    const path = join(root, `made${n++}.pem`);
    const made = await loadOrCreatePrivateKey(path);
    assert.equal(made.created, true);
    const again = await loadOrCreatePrivateKey(path);
    assert.equal(again.created, false);
    assert.equal(again.warning, undefined);
    assert.equal(again.key.publicKey.toBase64(), made.key.publicKey.toBase64());
  });

  test('a 0-byte or torn key left by a cut-off start: KEY_FORMAT naming the file and what to do', async () => {
    const dir = join(root, `torn${n++}`);
    mkdirSync(dir);
    const whole = generatePrivateKey().toPem();
    for (const [file, text] of [
      ['empty.pem', ''],
      ['torn.pem', whole.slice(0, 60)],
    ] as const) {
      const path = join(dir, file);
      writeFileSync(path, text, { mode: 0o600 });
      await assert.rejects(
        () => loadOrCreatePrivateKey(path),
        (err: CardsError) =>
          err.code === 'KEY_FORMAT' &&
          err.message.includes(path) &&
          /cut off|damaged/.test(err.message) &&
          /delete/.test(err.hint ?? '') &&
          /restore/.test(err.hint ?? ''),
      );
      assert.equal(readFileSync(path, 'utf8'), text, 'the file is left as it was');
    }
  });

  test('making a key never leaves a 0-byte or torn file: a failed write or fsync leaves none', async (t) => {
    const keyFiles = new URL('../../src/io/key-files.js', import.meta.url).href;
    const make = (path: string): string => `
      const { loadOrCreatePrivateKey } = await import(${JSON.stringify(keyFiles)});
      try { await loadOrCreatePrivateKey(${JSON.stringify(path)}); console.log('made'); }
      catch (err) { console.log('failed', err.code); }`;
    const node = [process.execPath, '--input-type=module', '-e'];
    const faults: [string, string[]][] = [];
    if (spawnSync('prlimit', ['--version']).status === 0)
      // The file-size limit cuts the PEM (119 bytes) short, then fails the write (EFBIG).
      faults.push(['a write cut short', ['prlimit', '--fsize=60', ...node]]);
    const strace = ['strace', '-f', '-qq', '-o', '/dev/null', '-e', 'trace=fsync,fdatasync'];
    if (spawnSync('strace', ['-V']).status === 0)
      faults.push(['an fsync error', [...strace, '-e', 'inject=fsync:error=EIO', ...node]]);
    if (faults.length === 0) return t.skip('needs prlimit or strace');
    for (const [name, command] of faults) {
      const dir = join(root, `fault${n++}`);
      mkdirSync(dir);
      const path = join(dir, 'cards.json.service-key.pem');
      const [bin, ...args] = command as [string, ...string[]];
      const run = spawnSync(bin, [...args, make(path)], { encoding: 'utf8' });
      assert.match(run.stdout, /failed/, `${name}: ${run.stdout} ${run.stderr}`);
      assert.deepEqual(readdirSync(dir), [], `${name}: no key file, no temporary file`);
      const made = await loadOrCreatePrivateKey(path);
      assert.equal(made.created, true, `${name}: the next start makes the key`);
    }
  });
});
