/**
 * Store faults, on a real `cards serve` child process:
 *
 * - A write fails: the process's file-size limit (RLIMIT_FSIZE, set on the running server with
 *   `prlimit`, so the journal write is cut short half-way and then fails with EFBIG, as on a
 *   full disk); the folder and files made immutable (`chattr +i`: root ignores permission
 *   bits, so chmod would not fail a write); a tiny tmpfs filled up (ENOSPC). Each time the
 *   request gets 500 with the Error object, the refused card is invisible (GET 404, absent
 *   from search) and absent after a restart, reads keep working, and writes recover by
 *   themselves once the disk does. The chattr and tmpfs parts need root and are skipped
 *   without it; the prlimit part needs only the util-linux `prlimit` tool.
 * - A journal line torn half-way never stops the next start.
 * - A corrupt store at start: a clear message, exit status 1, every file untouched.
 * - A second server on the same store is refused, whatever the spelling of the path.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { makeTempDir, runServeToExit, startServer, type Served } from '../helpers/server.js';
import { startInProcess } from '../helpers/in-process-server.js';
import { makeCard, makeRevocation } from '../http/card-kit.js';
import { call, disposer, replyCode, storeBytes } from './kit.js';

const tool = (command: string, args: string[]): boolean =>
  spawnSync(command, args, { stdio: 'ignore' }).status === 0;

/** The ids of alice's cards that search returns. */
async function searchIds(server: Served, identity = 'alice'): Promise<string[]> {
  const reply = await call(server, 'POST', '/card/v5/actions/search', {
    body: { identity },
    identity,
  });
  assert.equal(reply.status, 200, 'search keeps working');
  return (JSON.parse(reply.text) as { content_snapshot: string }[]).map(
    (card) => card.content_snapshot,
  );
}

/**
 * Asserts the failure contract for one refused write: 500 STORE_UNAVAILABLE as the Error
 * object, the card not visible by GET or search, the store's files unchanged, reads working.
 */
async function assertRefusedWrite(
  server: Served,
  request: { path: string; body: unknown },
  hidden: { id?: string; snapshot?: string },
  visible: readonly { id: string; snapshot: string }[],
): Promise<void> {
  const before = storeBytes(server.paths);
  const reply = await call(server, 'POST', request.path, { body: request.body });
  assert.equal(reply.status, 500, `${request.path}: ${reply.text}`);
  assert.equal(replyCode(reply, request.path), 'STORE_UNAVAILABLE');
  assert.equal(storeBytes(server.paths), before, 'a failed write leaves no trace in the files');
  if (hidden.id) assert.equal((await call(server, 'GET', `/card/v5/${hidden.id}`)).status, 404);
  const found = await searchIds(server);
  if (hidden.snapshot) assert.ok(!found.includes(hidden.snapshot), 'absent from search');
  for (const card of visible) {
    assert.equal((await call(server, 'GET', `/card/v5/${card.id}`)).status, 200, 'reads work');
    assert.ok(found.includes(card.snapshot), 'still in search');
  }
}

const summary = (card: ReturnType<typeof makeCard>): { id: string; snapshot: string } => ({
  id: card.id,
  snapshot: card.raw.content_snapshot,
});

describe('store faults: failing writes', () => {
  const hasPrlimit = tool('prlimit', ['--version']);

  test(
    'a write cut short by the file-size limit: 500, invisible, absent after restart; writes recover; a torn line never stops a start',
    { skip: hasPrlimit ? false : 'needs the prlimit tool (util-linux)' },
    async (t) => {
      const keep = disposer(t);
      const server = keep(await startServer({ args: ['--quiet'] }));
      const pid = String(server.proc.pid);
      const limit = (value: string): void =>
        assert.ok(tool('prlimit', ['--pid', pid, `--fsize=${value}:`]), 'prlimit works');
      const a = makeCard('alice');
      const b = makeCard('alice', { previousCardId: a.id });
      const c = makeCard('alice');
      for (const card of [a, b, c])
        assert.equal((await call(server, 'POST', '/card/v5', { body: card.raw })).status, 201);

      // Room for a tenth of a card: the next journal write is torn half-way, then fails.
      limit(String(statSync(server.paths.journal).size + 64));
      const d = makeCard('alice');
      const e = makeCard('alice', { previousCardId: c.id });
      const visible = [a, b, c].map(summary);
      await assertRefusedWrite(server, { path: '/card/v5', body: d.raw }, summary(d), visible);
      await assertRefusedWrite(server, { path: '/v5/card', body: e.raw }, summary(e), visible);
      await assertRefusedWrite(
        server,
        { path: '/card/v5/actions/revoke', body: makeRevocation('alice', c.id).raw },
        {},
        visible,
      );
      await assertRefusedWrite(
        server,
        { path: `/card/actions/revoke/${c.id}`, body: {} },
        {},
        visible,
      );
      assert.equal(
        (await call(server, 'GET', `/card/v5/${c.id}`)).headers.get('x-service-is-superseeded'),
        null,
        'neither the refused replacement nor the refused revocation supersedes c',
      );

      // The disk "recovers": the same requests now succeed, without a restart.
      limit('unlimited');
      assert.equal((await call(server, 'POST', '/card/v5', { body: d.raw })).status, 201);
      assert.equal((await call(server, 'POST', '/card/v5', { body: e.raw })).status, 201);

      // Fails again; then a crash, with a half-written line at the end of the journal.
      limit(String(statSync(server.paths.journal).size + 64));
      const f = makeCard('alice');
      await assertRefusedWrite(server, { path: '/card/v5', body: f.raw }, summary(f), [
        ...visible,
        summary(d),
        summary(e),
      ]);
      await server.kill();
      const torn = JSON.stringify({ id: f.id, identity: 'alice', ...f.raw });
      appendFileSync(server.paths.journal, torn.slice(0, torn.length / 2));

      const again = keep(await startInProcess({ dir: server.dir, args: ['--quiet'] }));
      assert.match(again.stdout(), /\(5 cards\)/);
      assert.equal((await call(again, 'GET', `/card/v5/${f.id}`)).status, 404);
      for (const card of [a, b, c, d, e])
        assert.equal((await call(again, 'GET', `/card/v5/${card.id}`)).status, 200);
      assert.equal((await searchIds(again)).length, 5);
    },
  );

  const isRoot = process.getuid?.() === 0;

  test(
    'the store file and its folder made read-only (chattr +i): 500, invisible, reads work; writes recover; shut-down keeps every card',
    { skip: isRoot ? false : 'chattr +i needs root (CAP_LINUX_IMMUTABLE)' },
    async (t) => {
      let files: string[] = [];
      const immutable = (on: boolean): boolean => tool('chattr', [on ? '+i' : '-i', ...files]);
      const keep = disposer(t, () => immutable(false));
      const server = keep(await startServer({ args: ['--quiet'] }));
      const { paths, dir } = server;
      files = [paths.store, paths.journal, dir];
      if (!immutable(true)) {
        immutable(false);
        t.skip('this file system does not support chattr +i');
        return;
      }
      immutable(false);
      const a = makeCard('alice');
      assert.equal((await call(server, 'POST', '/card/v5', { body: a.raw })).status, 201);

      assert.ok(immutable(true));
      const b = makeCard('alice', { previousCardId: a.id });
      await assertRefusedWrite(server, { path: '/card/v5', body: b.raw }, summary(b), [summary(a)]);
      await assertRefusedWrite(server, { path: `/card/v5/actions/revoke/${a.id}`, body: {} }, {}, [
        summary(a),
      ]);

      assert.ok(immutable(false));
      assert.equal((await call(server, 'POST', '/card/v5', { body: b.raw })).status, 201);
      const c = makeCard('alice');
      assert.equal((await call(server, 'POST', '/card/v5', { body: c.raw })).status, 201);

      // SIGTERM while the folder is read-only: the journal cannot be folded into the file.
      // The server says so and exits non-zero; the journal still holds every card.
      assert.ok(immutable(true));
      const stopped = await server.stop();
      assert.ok(immutable(false));
      assert.notEqual(stopped.code, 0, 'a shut-down that could not flush is not a success');
      assert.match(stopped.stderr, /STORE_UNAVAILABLE/);
      const again = keep(await startInProcess({ dir, args: ['--quiet'] }));
      for (const card of [a, b, c])
        assert.equal((await call(again, 'GET', `/card/v5/${card.id}`)).status, 200);
    },
  );

  test(
    'a full disk (a 256 KiB tmpfs): 500, invisible, absent after restart; writes recover when space is freed',
    { skip: isRoot ? false : 'mounting a tmpfs needs root' },
    async (t) => {
      const keep = disposer(t);
      const mountPoint = makeTempDir('cards-tmpfs-');
      t.after(() => {
        tool('umount', [mountPoint]);
        rmSync(mountPoint, { recursive: true, force: true });
      });
      if (!tool('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', mountPoint])) {
        t.skip('cannot mount a tmpfs here');
        return;
      }
      const server = keep(await startInProcess({ dir: mountPoint, args: ['--quiet'] }));
      const a = makeCard('alice');
      assert.equal((await call(server, 'POST', '/card/v5', { body: a.raw })).status, 201);

      // Fill the disk; a few more cards may still fit in the journal's last page.
      const filler = join(mountPoint, 'filler');
      try {
        for (let i = 0; ; i++) appendFileSync(filler, Buffer.alloc(4096, i));
      } catch (err) {
        assert.equal((err as NodeJS.ErrnoException).code, 'ENOSPC');
      }
      const stored = [summary(a)];
      let refused: ReturnType<typeof makeCard> | undefined;
      for (let i = 0; i < 20 && !refused; i++) {
        const card = makeCard('alice');
        const before = storeBytes(server.paths);
        const reply = await call(server, 'POST', '/card/v5', { body: card.raw });
        if (reply.status === 201) stored.push(summary(card));
        else {
          assert.equal(replyCode(reply), 'STORE_UNAVAILABLE');
          assert.equal(storeBytes(server.paths), before);
          refused = card;
        }
      }
      assert.ok(refused, 'the full disk refused a write');
      assert.equal((await call(server, 'GET', `/card/v5/${refused.id}`)).status, 404);
      await assertRefusedWrite(
        server,
        { path: '/card/v5', body: makeCard('alice').raw },
        {},
        stored,
      );

      rmSync(filler);
      assert.equal((await call(server, 'POST', '/card/v5', { body: refused.raw })).status, 201);
      await assert.doesNotReject(server.stop());
      const again = keep(await startInProcess({ dir: mountPoint, args: ['--quiet'] }));
      assert.equal((await searchIds(again)).length, stored.length + 1);
    },
  );
});

describe('store faults: start-up', () => {
  test('a corrupt store or journal at start: a clear message, exit 1, every file untouched', async (t) => {
    // A real store to corrupt: a, then b replacing a.
    const server = await startInProcess({ args: ['--quiet'] });
    t.after(() => server.dispose());
    const a = makeCard('alice');
    const b = makeCard('alice', { previousCardId: a.id });
    for (const card of [a, b])
      assert.equal((await call(server, 'POST', '/card/v5', { body: card.raw })).status, 201);
    await assert.doesNotReject(server.stop());
    const good = readFileSync(server.paths.store, 'utf8');
    const [lineA = '', lineB = ''] = good.split('\n').filter((l) => l.startsWith('{"id"'));
    const withCards = (...lines: string[]): string =>
      `{\n"format": "cards-store",\n"version": 1,\n"cards": [\n${lines.map((l) => l.replace(/,$/, '')).join(',\n')}\n]\n}\n`;
    const orphan = lineB.replace(
      /"previous_card_id":"[0-9a-f]{64}"/,
      `"previous_card_id":"${'e'.repeat(64)}"`,
    );

    const cases: [string, string, string | undefined][] = [
      ['binary garbage', '\u0000\u0001\u00ff garbage', undefined],
      ['a torn store file', good.slice(0, Math.floor(good.length / 2)), undefined],
      ['JSON but not a store', '{"hello":"world"}', undefined],
      ['a JSON array', '[]', undefined],
      ['a newer format version', good.replace('"version": 1', '"version": 2'), undefined],
      ['a card without identity', good.replace(/"identity":"alice",/, ''), undefined],
      ['the same card twice', withCards(lineA, lineA), undefined],
      ['a card before its previous card', withCards(lineB, lineA), undefined],
      [
        'a journal line that is not JSON, then more',
        withCards(lineA),
        `{"id":\n${lineB.replace(/,$/, '')}\n`,
      ],
      ['a journal card naming a missing card', withCards(lineA), `${orphan.replace(/,$/, '')}\n`],
    ];
    for (const [name, text, journal] of cases) {
      const dir = makeTempDir('cards-corrupt-');
      t.after(() => rmSync(dir, { recursive: true, force: true }));
      const db = join(dir, 'cards.json');
      writeFileSync(db, text);
      const journalPath = join(dir, 'cards.json.journal');
      if (journal !== undefined) writeFileSync(journalPath, journal);
      const result = await runServeToExit(['--port', '0', '--db', db, '--quiet'], { cwd: dir });
      assert.equal(result.code, 1, `${name}: exit status (${result.stderr})`);
      assert.match(result.stderr, /STORE_CORRUPT/, name);
      assert.ok(
        result.stderr.includes(db) || result.stderr.includes(journalPath),
        `${name}: names the file`,
      );
      assert.doesNotMatch(result.stdout, /listening/, name);
      assert.equal(readFileSync(db, 'utf8'), text, `${name}: store file untouched`);
      if (journal !== undefined)
        assert.equal(readFileSync(journalPath, 'utf8'), journal, `${name}: journal untouched`);
      assert.ok(!existsSync(join(dir, 'cards.json.lock')), `${name}: no lock left behind`);
    }
  });

  test('a second server on the same store is refused, however the path is spelled', async (t) => {
    const server = await startInProcess({ args: ['--quiet'] });
    t.after(() => server.dispose());
    const a = makeCard('alice');
    assert.equal((await call(server, 'POST', '/card/v5', { body: a.raw })).status, 201);
    const before = storeBytes(server.paths);

    const other = makeTempDir('cards-second-');
    t.after(() => rmSync(other, { recursive: true, force: true }));
    symlinkSync(server.dir, join(other, 'linked-dir'));
    mkdirSync(join(other, 'files'));
    symlinkSync(server.paths.store, join(other, 'files', 'linked.json'));
    const spellings: [string, string][] = [
      ['the same path', server.paths.store],
      ['relative, from its folder', 'cards.json'],
      [
        'with ./ and ../',
        join(server.dir, '.', '..', server.dir.split('/').pop() ?? '', 'cards.json'),
      ],
      ['through a symlinked folder', join(other, 'linked-dir', 'cards.json')],
      ['through a symlink to the file', join(other, 'files', 'linked.json')],
    ];
    for (const [name, db] of spellings) {
      const second = await runServeToExit(['--port', '0', '--db', db, '--quiet'], {
        cwd: server.dir,
        process: true,
      });
      assert.equal(second.code, 1, `${name}: refused (${second.stdout} ${second.stderr})`);
      assert.match(second.stderr, /STORE_LOCKED.*pid \d+/, name);
      assert.doesNotMatch(second.stdout, /listening/, name);
      assert.equal(storeBytes(server.paths), before, `${name}: store untouched`);
    }
    // The first server never noticed.
    const b = makeCard('alice', { previousCardId: a.id });
    assert.equal((await call(server, 'POST', '/card/v5', { body: b.raw })).status, 201);
    await assert.doesNotReject(server.stop());
  });
});
