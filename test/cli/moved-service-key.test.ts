/**
 * A registry moved by export → import keeps verifying when its service key moves with it
 * (docs/serve.md, "Moving a registry and its service key"): the cards carry the service
 * signature of the server they come from, so the server they move to serves with that key
 * (`--service-key FILE`, on any engine), and `cards inspect` of a moved card against it checks
 * out; a server with a key of its own does not verify them (why the key must move).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { postCard } from '../helpers/post-card.js';
import { freshStoreUrl } from '../helpers/postgres.js';
import { startInProcess } from '../helpers/in-process-server.js';
import { removeTempDirs, type Served } from '../helpers/server.js';
import { makeCard } from '../http/card-kit.js';
import { said, sandbox } from './harness.js';

const box = sandbox();
after(() => box.cleanup());
after(removeTempDirs);

const ARGS = ['--quiet', '--no-log'];

let dumps = 0;

/** `cards export` from one server, `cards import` into the other: import's stderr. */
async function move(from: Served, to: Served): Promise<string> {
  const file = join(box.dir, `dump-${dumps++}.ndjson`);
  const exported = await box.cards(['export', '--url', from.url, '--out', file]);
  assert.equal(exported.status, 0, said(exported));
  const imported = await box.cards(['import', file, '--url', to.url]);
  assert.equal(imported.status, 0, said(imported));
  return imported.stderr;
}

const inspect = async (server: Served, id: string) =>
  box.cards([
    'inspect',
    id,
    '--url',
    server.url,
    '--token',
    await server.token('alice'),
    '--service-key',
    server.serviceKey,
    '--json',
  ]);

describe('a moved registry and its service key', () => {
  test('JSON → PostgreSQL with the key moved: inspect checks out; without it: refused, saying why', async (t) => {
    const source = await startInProcess({ args: ARGS });
    t.after(() => source.dispose());
    const card = makeCard('alice');
    await postCard(source, 'alice', card.raw);
    const moved = await startInProcess({
      store: await freshStoreUrl(),
      args: [...ARGS, '--service-key', source.paths.serviceKey],
    });
    t.after(() => moved.dispose());
    assert.equal(moved.serviceKey, source.serviceKey);
    assert.doesNotMatch(await move(source, moved), /another registry/);
    const checked = await inspect(moved, card.id);
    assert.equal(checked.status, 0, said(checked));
    const report = checked.json<{ ok: boolean; service: { checked: boolean } }>();
    assert.equal(report.ok, true);
    assert.equal(report.service.checked, true);

    const elsewhere = await startInProcess({ store: await freshStoreUrl(), args: ARGS });
    t.after(() => elsewhere.dispose());
    assert.notEqual(elsewhere.serviceKey, source.serviceKey);
    // The import says at once that the cards were signed with another registry's key.
    assert.match(
      await move(source, elsewhere),
      /warning: these cards carry the service signature of another registry/,
    );
    const refused = await inspect(elsewhere, card.id);
    assert.notEqual(refused.status, 0, said(refused));
    const failed = refused.json<{ ok: boolean; service: { hint: string | null } }>();
    assert.equal(failed.ok, false);
    // The refusal says why and what to do: the card keeps the old registry's signature.
    assert.match(failed.service.hint ?? '', /moved from another registry/);
    assert.match(failed.service.hint ?? '', /cards serve --service-key FILE/);
  });
});
