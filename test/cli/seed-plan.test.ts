/**
 * `cards seed` validates the whole plan before it sends anything, and a server's refusal
 * mid-way still yields the --json summary of what was created.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { said, type Sandbox } from './harness.js';
import { serverInSandbox, type SandboxServer } from './server-sandbox.js';

describe('seed: the plan first, and a summary on failure', () => {
  let server: SandboxServer;
  let box: Sandbox;
  before(async () => ({ server, box } = await serverInSandbox()));
  after(() => Promise.all([server.dispose(), box.cleanup()]));

  const write = (name: string, cards: unknown[], identity = 'alice'): string => {
    writeFileSync(
      join(box.dir, name),
      JSON.stringify({ version: 1, identities: [{ ref: identity, identity, cards }] }),
    );
    return name;
  };
  const count = async (identity: string): Promise<number> => {
    const r = await box.cards(['search', identity, '--json']);
    assert.equal(r.status, 0, said(r));
    return r.json<{ total: number }>().total;
  };

  test('two cards that would make identical snapshots: exit 2, nothing sent', async () => {
    const file = write(
      'same.json',
      [{ name: 'one' }, { name: 'spare' }, { name: 'two', key: 'one' }],
      'carol',
    );
    const r = await box.cards(['seed', file, '--concurrency', '1']);
    assert.equal(r.status, 2, said(r));
    assert.match(r.stderr, /USAGE/);
    assert.match(r.stderr, /identical/);
    assert.equal(await count('carol'), 0, 'nothing was sent');
  });

  test('a refusal mid-way: the --json summary of what was created, and a non-zero exit', async () => {
    const file = write(
      'midway.json',
      [
        { name: 'first' },
        { name: 'second', replaces: 'f'.repeat(64), extra: { after: '${first.id}' } },
      ],
      'dave',
    );
    const r = await box.cards(['seed', file, '--concurrency', '1', '--json']);
    assert.notEqual(r.status, 0, said(r));
    assert.match(r.stderr, /PREVIOUS_NOT_FOUND/);
    const summary = r.json<{
      created: number;
      cards: Record<string, { id: string }>;
      error: { name: string };
    }>();
    assert.equal(summary.created, 1);
    assert.match(summary.cards.first?.id ?? '', /^[0-9a-f]{64}$/);
    assert.equal(summary.cards.second, undefined);
    assert.equal(summary.error.name, 'PREVIOUS_NOT_FOUND');
    assert.equal(await count('dave'), 1);
  });
});
