/**
 * `cards export --out FILE` writes a new file that holds the whole dump or is absent: an
 * existing FILE is refused before anything is asked of the service (FILE_EXISTS, exit 4, the
 * file untouched), and an export stopped half-way (Ctrl-C, SIGTERM, kill -9) leaves no file
 * under that name: the dump streams into a hidden temporary file beside it that is linked to
 * the name only once whole (io/fs-durable.ts, createFileStream).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { BIN, said, sandbox, type Sandbox } from './harness.js';

const servers: Server[] = [];
after(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const line = `${JSON.stringify({ id: 'a'.repeat(64), identity: 'alice', content_snapshot: 'QQ==', signatures: [] })}\n`;

/** An admin API whose export answer starts, sends 1,000 lines and then holds; counts requests. */
async function stalling(): Promise<{ url: string; requests: () => number }> {
  let requests = 0;
  const server = createServer((req, res) => {
    requests++;
    req.resume();
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    res.write(line.repeat(1000));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, requests: () => requests };
}

/** The hidden temporary file the export is writing, once it holds bytes. */
async function partial(box: Sandbox): Promise<string> {
  for (let i = 0; i < 600; i++) {
    const tmp = readdirSync(box.dir).find((name) => name.startsWith('.dump.ndjson.'));
    if (tmp !== undefined && statSync(join(box.dir, tmp)).size > 0) return tmp;
    await sleep(50);
  }
  throw new Error('the export never began writing');
}

test('an existing --out file is refused before the service is asked, and left as it was', async (t) => {
  const box = sandbox({});
  t.after(() => box.cleanup());
  const { url, requests } = await stalling();
  const out = join(box.dir, 'dump.ndjson');
  writeFileSync(out, 'kept\n');
  const r = await box.cards(['export', '--url', url, '--admin-token', 't', '--out', 'dump.ndjson']);
  assert.equal(r.status, 4, said(r));
  assert.match(r.stderr, /FILE_EXISTS .*dump\.ndjson exists already/, said(r));
  assert.match(r.stderr, /name another --out file/, said(r));
  assert.equal(readFileSync(out, 'utf8'), 'kept\n');
  assert.equal(requests(), 0, 'nothing was asked of the service');
});

for (const signal of ['SIGINT', 'SIGTERM', 'SIGKILL'] as const) {
  test(`an export stopped by ${signal} half-way leaves no file under the --out name`, async (t) => {
    const box = sandbox({});
    t.after(() => box.cleanup());
    const { url } = await stalling();
    const child = spawn(
      process.execPath,
      [BIN, 'export', '--url', url, '--admin-token', 't', '--out', 'dump.ndjson'],
      { cwd: box.dir, env: box.env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await partial(box);
    child.kill(signal);
    const status = await exited;
    assert.equal(existsSync(join(box.dir, 'dump.ndjson')), false, 'no partial dump is named');
    if (signal === 'SIGKILL') return;
    assert.equal(status, 130, stderr);
    assert.equal(stderr, 'export: interrupted; dump.ndjson was not written.\n');
    assert.deepEqual(
      readdirSync(box.dir).filter((name) => name.startsWith('.dump')),
      [],
    );
  });
}
