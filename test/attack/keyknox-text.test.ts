/**
 * The text rule (docs/http.md, "Text") on e3kit's Keyknox routes, on every engine, against a
 * real `cards serve --compat virgil` on port 0: a root, path, key, owner or reader that is not
 * well-formed Unicode without U+0000 is refused before any engine sees it. Without the rule
 * PostgreSQL answered 503 for U+0000 where the JSON file stored it, and stored a lone surrogate
 * as U+FFFD, so an entry pushed at root "x\uD800" was listed at root "x\uDC00"; an export of
 * the JSON file could not be imported on PostgreSQL. A stock token's app id (Keyknox entries
 * and Pythia keys are kept per app) is held to the same rule.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { E3KIT_APP } from '../helpers/e3kit-call.js';
import {
  EVERY_ENGINE,
  exportLines,
  startInProcess,
  type InProcessServer,
} from '../helpers/in-process-server.js';
import { removeTempDirs } from '../helpers/server.js';

after(removeTempDirs);

const ARGS = ['--compat', 'virgil', '--quiet', '--no-log'];
const NOT_TEXT = ['x\u0000', 'x\uD800', 'x\uDBFF', '\uDC00x'];
const b64 = (text: string): string => Buffer.from(text).toString('base64');

interface Answer {
  readonly status: number;
  readonly body: { code?: number; [name: string]: unknown } | unknown[];
}

async function call(
  server: InProcessServer,
  path: string,
  body: unknown,
  options: { identity?: string; app?: string } = {},
): Promise<Answer> {
  const token = await server.token(options.identity ?? 'alice', {
    format: 'stock',
    appId: options.app ?? E3KIT_APP,
  });
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Virgil ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}

const codeOf = (answer: Answer): number | undefined =>
  Array.isArray(answer.body) ? undefined : answer.body.code;

const entry = (fields: Record<string, unknown>) => ({
  root: 'e3kit',
  path: 'backup',
  key: 'laptop',
  identities: ['alice'],
  meta: b64('m'),
  value: b64('v'),
  ...fields,
});

for (const [engine, place] of EVERY_ENGINE) {
  describe(`Keyknox text on the ${engine} engine`, () => {
    test('a root, path, key or reader that is not text is refused with its code; nothing is stored', async (t) => {
      const store = await place();
      const server = await startInProcess({ args: ARGS, ...(store && { store }) });
      t.after(() => server.dispose());
      for (const text of NOT_TEXT) {
        const label = JSON.stringify(text);
        for (const field of ['root', 'path', 'key'])
          assert.equal(
            codeOf(await call(server, '/keyknox/v2/push', entry({ [field]: text }))),
            50002,
            `push ${field} ${label}`,
          );
        assert.equal(
          codeOf(await call(server, '/keyknox/v2/push', entry({ identities: ['bob', text] }))),
          50003,
          `push reader ${label}`,
        );
        const pull = await call(server, '/keyknox/v2/pull', {
          root: 'e3kit',
          path: 'backup',
          key: 'laptop',
          identity: text,
        });
        assert.deepEqual([pull.status, codeOf(pull)], [400, 50002], `pull owner ${label}`);
        const keys = await call(server, '/keyknox/v2/keys', { root: text });
        assert.deepEqual([keys.status, codeOf(keys)], [400, 50002], `keys root ${label}`);
        const reset = await call(server, '/keyknox/v2/reset', { root: 'e3kit', identity: text });
        assert.deepEqual([reset.status, codeOf(reset)], [400, 50002], `reset reader ${label}`);
      }
      assert.deepEqual(await exportLines(server), []);
    });

    test('an entry at root "x\\uFFFD" is never found at a lone surrogate', async (t) => {
      const store = await place();
      const server = await startInProcess({ args: ARGS, ...(store && { store }) });
      t.after(() => server.dispose());
      const pushed = await call(server, '/keyknox/v2/push', entry({ root: 'x\uFFFD' }));
      assert.equal(pushed.status, 200, JSON.stringify(pushed.body));
      const mine = await call(server, '/keyknox/v2/keys', { root: 'x\uFFFD', path: 'backup' });
      assert.deepEqual(mine.body, ['laptop']);
      for (const text of ['x\uD800', 'x\uDC00']) {
        const keys = await call(server, '/keyknox/v2/keys', { root: text, path: 'backup' });
        assert.deepEqual([keys.status, codeOf(keys)], [400, 50002], JSON.stringify(text));
      }
    });

    test("an import's Keyknox line holding such text is IMPORT_INVALID; nothing is stored", async (t) => {
      const store = await place();
      const server = await startInProcess({ args: ARGS, ...(store && { store }) });
      t.after(() => server.dispose());
      assert.equal((await call(server, '/keyknox/v2/push', entry({}))).status, 200);
      const [line] = await exportLines(server);
      assert.ok(line?.startsWith('{"keyknox2"'), line);
      const before = await exportLines(server);
      for (const [from, to] of [
        ['"root":"e3kit"', '"root":"e3\\u0000kit"'],
        ['"owner":"alice"', '"owner":"alice\\ud800"'],
        ['"identity":"alice"', '"identity":"\\udfffalice"'],
        ['"app":"', '"app":"\\u0000'],
      ] as const) {
        const hostile = line!.replace(from, to).replace('"root":"e3kit"', '"root":"moved"');
        assert.notEqual(hostile, line, from);
        const response = await fetch(`${server.url}/_cards/import`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-ndjson' },
          body: `${hostile}\n`,
        });
        const body = (await response.json()) as { code?: string | number; message?: string };
        assert.equal(response.status, 400, `${to}: ${JSON.stringify(body)}`);
        assert.match(String(body.message), /line 1 .*well-formed Unicode without U\+0000/, to);
        assert.deepEqual(await exportLines(server), before, to);
      }
    });

    test('a stock token whose app id is not text is refused (TOKEN_CLAIMS); nothing is stored', async (t) => {
      const store = await place();
      const server = await startInProcess({ args: ARGS, ...(store && { store }) });
      t.after(() => server.dispose());
      for (const app of NOT_TEXT) {
        const pushed = await call(server, '/keyknox/v2/push', entry({}), { app });
        assert.deepEqual([pushed.status, codeOf(pushed)], [401, 20307], JSON.stringify(app));
      }
      assert.deepEqual(await exportLines(server), []);
    });
  });
}
