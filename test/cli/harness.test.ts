/**
 * The CLI harness itself: a command still running at its limit is killed, and the failing
 * test's output says where it was (node's diagnostic report: the JavaScript stack and the open
 * handles), so a hang on a CI machine can be read, not only seen.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCards, sandbox } from './harness.js';

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
