/**
 * The CLI harness itself: a command still running at its limit is killed, and the failing
 * test's output says where it was (node's diagnostic report: the JavaScript stack and the open
 * handles), so a hang on a CI machine can be read, not only seen; one run in-process is
 * abandoned at its limit, named. And the real executable agrees with the in-process run the
 * other tests use: version, an error's exit status and the --json error document.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { VERSION } from '../../src/cli/version.js';
import { runCards, runCardsInProcess, said, sandbox } from './harness.js';

test('a command past its limit is killed with its stack and open handles in stderr', async () => {
  const box = sandbox();
  try {
    // `cards serve` never ends by itself: the stand-in for a hung command. 6 s: on a busy
    // machine it must be listening (its socket the handle asserted below) before the limit.
    const served = await runCards(
      ['serve', '--port', '0', '--host', '127.0.0.1', '--db', join(box.dir, 'cards.json')],
      { cwd: box.dir, env: box.env, limitMs: 6_000 },
    );
    assert.equal(served.status, null, 'killed by the harness');
    assert.match(served.stderr, /still running after 6 s: killed/);
    assert.match(served.stderr, /\[harness\] JavaScript stack: none \(waiting in the event loop\)/);
    // Each thread as the kernel sees it: the main one waits in epoll (a system call number), or
    // is caught on a CPU (`running`) on a busy machine.
    assert.match(
      served.stderr,
      /\[harness\] threads \(id, name, state, system call\):\n\s+\d+ node [RSD] syscall (\d+|running)/,
    );
    // Where gdb is installed (CI's machine), each thread's native frames: the main thread's
    // event loop waits in uv_run.
    if (spawnSync('gdb', ['--version']).status === 0)
      assert.match(
        served.stderr,
        /\[harness\] native stacks \(gdb\):\n\s+Thread \d(.*\n)*\s+#\d+ .*uv_run/,
      );
    else assert.match(served.stderr, /\[harness\] native stacks: gdb not run/);
    // The listening socket is what keeps it alive.
    assert.match(
      served.stderr,
      /\[harness\] handles keeping it alive:\n(.*\n)*\s+tcp 127\.0\.0\.1:\d+ -> -/,
    );
  } finally {
    box.cleanup();
  }
});

test('a command in-process past its limit is abandoned, named, with what keeps it busy', async () => {
  const box = sandbox();
  // A service that accepts and never answers: the search waits on it past the limit.
  const sockets: Socket[] = [];
  const silent = createServer((socket) => void sockets.push(socket));
  silent.listen(0, '127.0.0.1');
  await once(silent, 'listening');
  const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  try {
    const hung = await runCardsInProcess(['search', 'alice', '--url', url, '--token', 'x.y.z'], {
      cwd: box.dir,
      env: box.env,
      limitMs: 3_000,
    });
    assert.equal(hung.status, null, 'abandoned by the harness');
    assert.match(hung.stderr, /cards search alice .* still running after 3 s: abandoned/);
    assert.match(hung.stderr, /\[harness\] resources keeping this process busy: .*TCP/);
  } finally {
    // The abandoned command's connection ends with the service: it settles, nothing leaks.
    for (const socket of sockets) socket.destroy();
    silent.close();
    box.cleanup();
  }
});

test('the executable and the in-process run agree: version, exit status, --json error', async () => {
  const box = sandbox();
  try {
    const both = async (args: string[]) => {
      const real = await box.cards(args, { process: true });
      const inProcess = await box.cards(args);
      const seen = ({ status, stdout, stderr }: typeof real) => ({ status, stdout, stderr });
      assert.deepEqual(seen(inProcess), seen(real), `in-process: ${said(inProcess)}`);
      return real;
    };
    const version = await both(['--version']);
    assert.equal(version.status, 0, said(version));
    assert.equal(version.stdout, `${VERSION}\n`);
    // A file that is not there: the one error line on stderr and its exit status.
    const missing = await both(['inspect', 'no-such-card.json']);
    assert.notEqual(missing.status, 0, said(missing));
    assert.match(missing.stderr, /^error [A-Z_]+ \(9\d{4}\): /m);
    // --json: the error document on stdout as well, exit 2 for a usage error.
    const json = await both(['--json', 'keygen', '--type', 'dsa']);
    assert.equal(json.status, 2, said(json));
    const { error } = json.json<{ error: { name: string; code: number } }>();
    assert.equal(error.name, 'USAGE');
    assert.equal(error.code, 90001);
    assert.match(json.stderr, /^error USAGE \(90001\): --type must be one of /m);
  } finally {
    box.cleanup();
  }
});
