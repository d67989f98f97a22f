/**
 * `cards serve --store postgres://…` whose connection is cut while it migrates the schema (a
 * network blip, a database restarting): it stops with a clear STORE_ error and exit status, and
 * the next start completes the migration. Without an 'error' listener on the migration's
 * checked-out client, the cut was an unhandled 'error' event: a raw stack trace and exit 1.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { PgRelay } from '../helpers/pg-relay.js';
import { freshStoreUrl } from '../helpers/postgres.js';
import { removeTempDirs, runServeToExit, startServer } from '../helpers/server.js';

after(removeTempDirs);

const MIGRATION_ROW = Buffer.from('INSERT INTO cards_migrations');

for (const when of ['before-sent', 'after-answer'] as const) {
  test(`a connection cut at a migration (${when}): a clean refusal, then a start that completes it`, async (t) => {
    const { relay, url } = await PgRelay.before(await freshStoreUrl());
    t.after(() => relay.close());
    relay.cut = { at: MIGRATION_ROW, when };
    const refused = await runServeToExit(['--port', '0', '--store', url, '--no-log', '--quiet'], {
      process: true,
    });
    assert.equal(relay.cuts, 1, 'the relay cut the connection at a migration');
    assert.doesNotMatch(refused.stderr, /Unhandled 'error' event|\n\s+at /, refused.stderr);
    assert.match(refused.stderr, /^error STORE_\w+ \(\d+\): /m, refused.stderr);
    assert.equal(refused.code, 9, refused.stderr);
    const server = await startServer({ store: url, args: ['--no-log', '--quiet'] });
    t.after(() => server.dispose());
    assert.equal((await fetch(`${server.url}/health`)).status, 200);
  });
}
