/**
 * Store hardening, on a real `cards serve`:
 *
 * - An fdatasync failure: the write is refused (500), the partial write is cut off AND the cut
 *   is fsync'ed (watched with strace attached to the running server: kill -9 keeps the page
 *   cache, so only the system calls show a missing fsync); when the cut itself fails, every
 *   write gets 503 STORE_READ_ONLY until it succeeds; nothing refused comes back after a restart.
 * - A torn last write (zero-filled or unreadable lines inside the journal's last batch) is
 *   dropped with a warning; the same damage before a later complete write is corruption.
 * - A bit flipped in a stored snapshot: that card is refused (500 STORE_CORRUPT), the others
 *   are served.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { startServer, type Served, type TestServer } from '../helpers/server.js';
import { startInProcess } from '../helpers/in-process-server.js';
import { makeCard } from '../http/card-kit.js';
import { call, disposer, replyCode } from './kit.js';

const hasStrace = spawnSync('strace', ['-V'], { stdio: 'ignore' }).status === 0;

/** strace attached to a running server: the calls it traces and the faults it injects. */
async function attachStrace(
  server: TestServer,
  inject: string[],
): Promise<{ detach(): Promise<string> }> {
  const args = [
    '-f',
    '-qq',
    '-p',
    String(server.proc.pid),
    '-e',
    'trace=fdatasync,fsync,ftruncate',
  ];
  for (const rule of inject) args.push('-e', `inject=${rule}`);
  const proc = spawn('strace', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let trace = '';
  proc.stderr.setEncoding('utf8').on('data', (chunk: string) => (trace += chunk));
  // Attached once the tracer printed nothing for a moment and the process is stopped/traced.
  for (let i = 0; i < 50; i++) {
    const status = readFileSync(`/proc/${server.proc.pid}/status`, 'utf8');
    if (/^TracerPid:\s+[1-9]/m.test(status)) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await new Promise((resolve) => setTimeout(resolve, 200));
  return {
    async detach() {
      const closed = new Promise((resolve) => proc.once('close', resolve));
      proc.kill('SIGTERM');
      await closed;
      return trace;
    },
  };
}

describe('store hardening: failed fsyncs', { skip: hasStrace ? false : 'needs strace' }, () => {
  test('an fdatasync failure: 500, the cut is fsynced; a cut that fails: 503 until it works; nothing refused after a restart', async (t) => {
    const keep = disposer(t);
    const server = keep(await startServer({ args: ['--quiet'] }));
    const a = makeCard('alice');
    assert.equal((await call(server, 'POST', '/card/v5', { body: a.raw })).status, 201);

    // Every fdatasync fails: the card's write is refused and cut back off, durably.
    const b = makeCard('alice');
    const tracer = await attachStrace(server, ['fdatasync:error=EIO']);
    const refused = await call(server, 'POST', '/card/v5', { body: b.raw });
    const trace = await tracer.detach();
    assert.equal(refused.status, 500, refused.text);
    assert.equal(replyCode(refused), 'STORE_UNAVAILABLE');
    const calls = trace.split('\n').map((line) => /(\w+)\((\d+)/.exec(line)?.slice(1) ?? []);
    const failed = calls.findIndex(([name]) => name === 'fdatasync');
    const fd = calls[failed]?.[1];
    assert.ok(failed >= 0, `the journal's fdatasync was traced:\n${trace}`);
    const cut = calls.findIndex(([name, f], i) => i > failed && name === 'ftruncate' && f === fd);
    assert.ok(cut > failed, `the refused write is cut off the journal:\n${trace}`);
    assert.ok(
      calls.some(
        ([name, f], i) => i > cut && (name === 'fsync' || name === 'fdatasync') && f === fd,
      ),
      `the cut is made durable (fsync after ftruncate):\n${trace}`,
    );

    // The cut fails too: the journal's state is unknown, so writes stop (503) until it works.
    const c = makeCard('alice');
    const d = makeCard('alice');
    const both = await attachStrace(server, ['fdatasync:error=EIO', 'ftruncate:error=EIO']);
    const first = await call(server, 'POST', '/card/v5', { body: c.raw });
    const second = await call(server, 'POST', '/card/v5', { body: d.raw });
    await both.detach();
    assert.equal(first.status, 500, first.text);
    assert.equal(second.status, 503, second.text);
    assert.equal(replyCode(second), 'STORE_READ_ONLY');
    assert.doesNotMatch(first.text + second.text, /journal|\/tmp|EIO/, 'no detail on the wire');
    assert.match(server.stderr(), /STORE_READ_ONLY|refusing writes/);
    // The disk is back: the next write repairs the journal first, then succeeds.
    assert.equal((await call(server, 'POST', '/card/v5', { body: d.raw })).status, 201);

    await server.kill();
    const again = keep(await startInProcess({ dir: server.dir, args: ['--quiet'] }));
    for (const [card, status] of [
      [a, 200],
      [b, 404],
      [c, 404],
      [d, 200],
    ] as const)
      assert.equal((await call(again, 'GET', `/card/v5/${card.id}`)).status, status, card.id);
  });
});

/** The journal's lines after a kill -9, and a way to write them back damaged. */
function journalLines(server: Served): string[] {
  return readFileSync(server.paths.journal, 'latin1').split('\n');
}

describe('store hardening: torn journals and damaged snapshots', () => {
  test('a zero-filled line inside the last write is a torn write: dropped with a warning', async (t) => {
    const keep = disposer(t);
    const server = keep(await startServer({ args: ['--quiet'] }));
    const a = makeCard('alice');
    const b = makeCard('alice');
    for (const card of [a, b])
      assert.equal((await call(server, 'POST', '/card/v5', { body: card.raw })).status, 201);
    // Both cards in a signed checkpoint before the crash (the log integrates within 500 ms).
    for (let i = 0; i < 100; i++) {
      const checkpoint = (await call(server, 'GET', '/log/checkpoint', { identity: null })).text;
      if (checkpoint.split('\n')[1] === '2') break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await server.kill();
    const lines = journalLines(server);
    const bLine = lines.findIndex((line) => line.includes(b.id));
    assert.ok(bLine > 0 && lines[bLine + 1]?.startsWith('{"commit":'), 'b has its own write');
    // Power loss mid-write: b's page never reached the disk (zeros), its commit line did.
    lines[bLine] = '\0'.repeat((lines[bLine] as string).length);
    writeFileSync(server.paths.journal, lines.join('\n'), 'latin1');

    // An acknowledged card lost is a rewound store: the transparency log, which signed it,
    // refuses to start over it; without the log the store's own rule applies.
    const rewound = await startServer({ dir: server.dir }).then(
      async (started) => {
        await started.stop();
        assert.fail('the log must refuse a store that lost a logged card');
      },
      (err: { result?: { code: number; stderr: string } }) => err.result,
    );
    assert.match(rewound?.stderr ?? '', /torn write/);
    assert.match(rewound?.stderr ?? '', /holds 1 cards but its transparency log .* signed 2/);
    const again = keep(await startInProcess({ dir: server.dir, args: ['--no-log'] }));
    assert.match(again.stdout(), /\(1 card\)/);
    assert.equal((await call(again, 'GET', `/card/v5/${a.id}`)).status, 200);
    assert.equal((await call(again, 'GET', `/card/v5/${b.id}`)).status, 404);
  });

  test('the same damage before a later complete write is corruption: refused, named, untouched', async (t) => {
    const keep = disposer(t);
    const server = keep(await startServer({ args: ['--quiet'] }));
    const a = makeCard('alice');
    const b = makeCard('alice');
    for (const card of [a, b])
      assert.equal((await call(server, 'POST', '/card/v5', { body: card.raw })).status, 201);
    await server.kill();
    const lines = journalLines(server);
    const aLine = lines.findIndex((line) => line.includes(a.id));
    lines[aLine] = '\0'.repeat((lines[aLine] as string).length);
    const damaged = lines.join('\n');
    writeFileSync(server.paths.journal, damaged, 'latin1');

    const refused = await startServer({ dir: server.dir }).then(
      () => assert.fail('a journal damaged before its last write must be refused'),
      (err: { result?: { code: number; stderr: string } }) => err.result,
    );
    assert.equal(refused?.code, 1);
    assert.match(refused?.stderr ?? '', /STORE_CORRUPT/);
    assert.match(refused?.stderr ?? '', new RegExp(`line ${aLine + 1}\\b`));
    assert.equal(readFileSync(server.paths.journal, 'latin1'), damaged, 'journal untouched');
  });

  test('a bit flipped in a stored snapshot: that card is refused, the others served', async (t) => {
    const keep = disposer(t);
    const server = keep(await startInProcess({ args: ['--quiet'] }));
    const a = makeCard('alice');
    const b = makeCard('bob');
    assert.equal((await call(server, 'POST', '/card/v5', { body: a.raw })).status, 201);
    const bob = { identity: 'bob' };
    assert.equal((await call(server, 'POST', '/card/v5', { body: b.raw, ...bob })).status, 201);
    await assert.doesNotReject(server.stop());
    const text = readFileSync(server.paths.store, 'utf8');
    const snapshot = a.raw.content_snapshot;
    // One character of the base64 changed: still base64, another snapshot, the same id.
    const at = snapshot.length - 8;
    const flipped = `${snapshot.slice(0, at)}${snapshot[at] === 'A' ? 'B' : 'A'}${snapshot.slice(at + 1)}`;
    writeFileSync(server.paths.store, text.replace(snapshot, flipped));

    const again = keep(await startInProcess({ dir: server.dir }));
    const get = await call(again, 'GET', `/card/v5/${a.id}`);
    assert.equal(get.status, 500, get.text);
    assert.equal(replyCode(get), 'STORE_CORRUPT');
    assert.doesNotMatch(get.text, new RegExp(flipped.slice(0, 16)));
    const search = await call(again, 'POST', '/card/v5/actions/search', {
      body: { identity: 'alice' },
    });
    assert.equal(search.status, 500, 'a search holding it is refused, not answered without it');
    assert.equal((await call(again, 'GET', `/card/v5/${b.id}`, bob)).status, 200);
    // The background pass finds it too, and tells the operator.
    for (let i = 0; i < 40 && !/is damaged/.test(again.stderr()); i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    assert.match(again.stderr(), new RegExp(`${a.id}.*is not served`));
  });
});
