/**
 * An import holds a bounded part of its Keyknox lines (registry/keyknox-transfer.ts, HELD_MAX),
 * not all it has read until the first card: a dump whose Keyknox lines run past the bound has
 * its first entries stored while its body is still arriving. Without the bound a dump of 600
 * blobs of 1 MB (each one a push could leave) grew a server on PostgreSQL to 912 MB before any
 * was stored; a longer one exhausts the process.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, test } from 'node:test';
import { LIMITS } from '../../src/core/limits.js';
import { startInProcess, type InProcessServer } from '../helpers/in-process-server.js';

let server: InProcessServer | undefined;
after(() => server?.dispose());

const stored = async (url: string): Promise<number> => {
  const page = (await (await fetch(`${url}/_cards/keyknox?limit=1000`)).json()) as {
    keyknox: unknown[];
  };
  return page.keyknox.length;
};

test('Keyknox lines past the held bound are stored while the body is still arriving', async () => {
  server = await startInProcess({ args: ['--quiet', '--no-log'] });
  const { url } = server;
  const value = randomBytes(LIMITS.keyknoxPushMax - 1024).toString('base64');
  const line = (i: number): string =>
    `{"keyknox1":{"app":"a","identity":"held-${i}","meta":"","value":"${value}","version":1,"hash":"AAAA","revision":1}}\n`;
  // Past twice the longest line (the bound), then the body waits for the test.
  const lines = Math.ceil((2 * LIMITS.keyknoxLineMax) / line(0).length) + 2;
  let sent = 0;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (sent === lines) {
        await released;
        return controller.close();
      }
      controller.enqueue(Buffer.from(line(sent++)));
    },
  });
  const answer = fetch(`${url}/_cards/import?append=true`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-ndjson' },
    body,
    duplex: 'half',
  } as RequestInit);
  let during = 0;
  for (let tries = 0; tries < 100 && during === 0; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    during = await stored(url);
  }
  release();
  const response = await answer;
  assert.equal(response.status, 200, await response.text());
  assert.ok(during > 0, 'entries stored before the body ended');
  assert.equal(await stored(url), lines);
});

test('a dump that replaces the registry is bounded: past it, 413 and the registry unchanged', async () => {
  server ??= await startInProcess({ args: ['--quiet', '--no-log'] });
  const { url } = server;
  const before = await stored(url);
  const value = randomBytes(LIMITS.keyknoxPushMax - 1024).toString('base64');
  const line = (i: number): string =>
    `{"keyknox1":{"app":"a","identity":"replace-${i}","meta":"","value":"${value}","version":1,"hash":"AAAA","revision":1}}\n`;
  const lines = Math.ceil(LIMITS.answerMax / line(0).length) + 2;
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent === lines) return controller.close();
      controller.enqueue(Buffer.from(line(sent++)));
    },
  });
  const response = await fetch(`${url}/_cards/import?replace=true`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-ndjson' },
    body,
    duplex: 'half',
  } as RequestInit).catch((err: Error) => err);
  assert.ok(!(response instanceof Error), `the refusal is read: ${String(response)}`);
  const answer = (await response.json()) as { code: string; message: string };
  assert.equal(response.status, 413, JSON.stringify(answer));
  assert.equal(answer.code, '10004');
  assert.match(answer.message, /The registry is unchanged/);
  assert.equal(await stored(url), before);
});
