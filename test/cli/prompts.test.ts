/**
 * Questions, driven by injected answers in-process (never a terminal): init's questions,
 * revoke's and unregister's confirmations, create's "make a key?", and the refusal to ask
 * without a terminal.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CardsError } from '../../src/core/errors.js';
import type { PublishResult } from '../../src/cli/commands/create/create.js';
import type { GetResult } from '../../src/cli/commands/get/get.js';
import type { InitResult } from '../../src/cli/commands/init/init.js';
import type { UnregisterResult } from '../../src/cli/commands/unregister/unregister.js';
import type { CommandContext } from '../../src/cli/context.js';
import { makeContext } from '../helpers/context.js';
import { ask, type PromptFn, type Question } from '../../src/cli/prompts.js';
import { loadKey } from '../../src/cli/keystore.js';
import { commandResult, type Sandbox } from './harness.js';
import { serverInSandbox, type SandboxServer } from './server-sandbox.js';

const create = (ctx: CommandContext, args: string[]) =>
  commandResult<PublishResult>(ctx, ['create', ...args]);
const get = async (ctx: CommandContext, id: string) =>
  (await commandResult<GetResult>(ctx, ['get', id])).state;
const init = (ctx: CommandContext, args: string[]) =>
  commandResult<InitResult>(ctx, ['init', ...args]);
const revoke = (ctx: CommandContext, id: string) => commandResult(ctx, ['revoke', id]);
const unregister = (ctx: CommandContext, identity: string) =>
  commandResult<UnregisterResult>(ctx, ['unregister', '--identity', identity]);

/** Answers from a table, recording every question asked. */
function answering(table: Record<string, string | boolean>): {
  prompt: PromptFn;
  asked: Question[];
} {
  const asked: Question[] = [];
  return {
    asked,
    prompt: async (questions) => {
      asked.push(...questions);
      return Object.fromEntries(questions.map((q) => [q.name, table[q.name] ?? q.default ?? '']));
    },
  };
}

const isCode = (code: string) => (err: unknown) => err instanceof CardsError && err.code === code;

describe('prompts with injected answers', { concurrency: true }, () => {
  let server: SandboxServer;
  let box: Sandbox;
  let dir: string;
  let base: CommandContext;
  before(async () => {
    ({ server, box } = await serverInSandbox());
    dir = box.dir;
    base = makeContext({ cwd: dir, env: { ...box.env, CARDS_HOME: join(dir, 'home') } });
  });
  after(() => Promise.all([server.dispose(), box.cleanup()]));

  test('init asks for what the flags did not give and writes the profile', async () => {
    const { prompt, asked } = answering({
      profile: 'work',
      url: 'http://10.0.0.1:8080',
      identity: 'ann',
      compat: 'virgil',
    });
    const ctx = { ...base, env: { ...base.env, CARDS_CONFIG: join(dir, 'init.json') }, prompt };
    const result = await init(ctx, ['--app-key', 'app.pem']);
    assert.deepEqual(
      asked.map((q) => q.name),
      ['profile', 'url', 'identity', 'compat'],
    );
    assert.equal(result.profile, 'work');
    const file = JSON.parse(readFileSync(join(dir, 'init.json'), 'utf8')) as {
      default: string;
      profiles: Record<string, Record<string, string>>;
    };
    assert.equal(file.default, 'work');
    assert.deepEqual(file.profiles.work, {
      url: 'http://10.0.0.1:8080',
      identity: 'ann',
      compat: 'virgil',
      appKey: join(dir, 'app.pem'),
    });

    const decline = answering({ ok: false });
    await assert.rejects(
      init({ ...ctx, prompt: decline.prompt }, [
        '--profile',
        'work',
        '--url',
        'http://x:1',
        '--identity',
        'a',
        '--compat',
        'service',
        '--app-key',
        'k',
      ]),
      isCode('DECLINED'),
    );
    assert.deepEqual(
      decline.asked.map((q) => q.name),
      ['ok'],
    );
  });

  test('create asks to make a missing key; revoke asks before revoking', async () => {
    await assert.rejects(
      create({ ...base, prompt: answering({ ok: false }).prompt }, ['--identity', 'ben']),
      isCode('DECLINED'),
    );
    const made = await create({ ...base, prompt: answering({ ok: true }).prompt }, [
      '--identity',
      'ben',
    ]);
    assert.ok(made.keyCreated && loadKey(join(dir, 'home'), 'ben'));

    await assert.rejects(
      revoke({ ...base, prompt: answering({ ok: false }).prompt }, made.id),
      isCode('DECLINED'),
    );
    assert.equal(await get(base, made.id), 'active');
    const yes = answering({ ok: true });
    await revoke({ ...base, prompt: yes.prompt }, made.id);
    assert.match(yes.asked[0]?.message ?? '', /Revoke card [0-9a-f]{64} of "ben"/);
    assert.equal(await get(base, made.id), 'revoked');
  });

  test('unregister confirms, revokes, then removes the key', async () => {
    await create(base, ['--identity', 'cy', '--new-key']);
    await assert.rejects(
      unregister({ ...base, prompt: answering({ ok: false }).prompt }, 'cy'),
      isCode('DECLINED'),
    );
    assert.ok(loadKey(join(dir, 'home'), 'cy'));
    const done = await unregister({ ...base, prompt: answering({ ok: true }).prompt }, 'cy');
    assert.equal(done.revoked.length, 1);
    assert.equal(loadKey(join(dir, 'home'), 'cy'), undefined);
  });

  test('nothing is asked without a terminal: a usage error names the flag', async () => {
    await assert.rejects(
      ask(base, [{ type: 'confirm', name: 'ok', message: 'Sure?' }], 'pass --yes'),
      (err: unknown) =>
        err instanceof CardsError && err.code === 'USAGE' && err.hint === 'pass --yes',
    );
  });
});
