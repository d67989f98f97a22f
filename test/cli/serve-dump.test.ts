/**
 * `cards serve --export-on-exit FILE` and `--import FILE`, served in this process on a real
 * port 0 (in-process-server.ts; refusals through the executable's funnel): a dump written when
 * the server stops as on SIGTERM (mode 0600, saying it holds private keys) brings a new server
 * back as the first was: the same cards in the same order, the same service key, the
 * same app key (its old tokens work), the same log origin, key and size (the same tree). A store
 * holding cards, or a file that is not a dump, is refused before listening.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { makeCard } from '../http/card-kit.js';
import { postCard } from '../helpers/post-card.js';
import { startInProcess } from '../helpers/in-process-server.js';
import { makeTempDir, removeTempDirs, runServeToExit, type Served } from '../helpers/server.js';

interface Info {
  service_key: string;
  cards: number;
  log: { origin: string; vkey: string; size: number };
}
const info = async (server: Served): Promise<Info> =>
  (await (await fetch(`${server.url}/_cards/info`)).json()) as Info;
const exported = async (server: Served): Promise<string> =>
  (await fetch(`${server.url}/_cards/export`)).text();

describe('cards serve --export-on-exit, then --import', () => {
  after(removeTempDirs);
  const dir = makeTempDir();
  const dump = join(dir, 'dump.ndjson');
  let before: Info;
  let cards: string;
  let token: string;

  test('stopping (as on SIGTERM) writes the dump: mode 0600, its header says it holds private keys', async () => {
    const first = await startInProcess({ args: ['--export-on-exit', dump] });
    try {
      const alice = makeCard('alice');
      await postCard(first, 'alice', alice.raw);
      await postCard(first, 'alice', makeCard('alice', { previousCardId: alice.id }).raw);
      await postCard(first, 'bob', makeCard('bob').raw);
      token = await first.token('carol', { ttlSeconds: 3600 });
      do before = await info(first);
      while (before.log.size < 3);
      cards = await exported(first);
    } finally {
      // Closes as `cards serve` does on SIGTERM; rejects when closing fails.
      await first.stop();
      assert.match(
        first.stderr(),
        /exported 3 cards and the keys to .*dump\.ndjson \(mode 0600: it holds private keys\)/,
      );
    }
    assert.equal(statSync(dump).mode & 0o777, 0o600);
    const [header, ...records] = readFileSync(dump, 'utf8').trimEnd().split('\n');
    const parsed = JSON.parse(header as string) as {
      format: string;
      warning: string;
      secrets: Record<string, string>;
    };
    assert.equal(parsed.format, 'cards-dump');
    assert.match(parsed.warning, /holds private keys/);
    assert.deepEqual(Object.keys(parsed.secrets).sort(), ['app-key', 'log-key', 'service-key']);
    assert.equal(`${records.join('\n')}\n`, cards);
  });

  test('--import brings a new server back as the first was', async () => {
    const second = await startInProcess({ args: ['--import', dump] });
    try {
      let now = await info(second);
      while (now.log.size < 3) now = await info(second);
      assert.equal(now.service_key, before.service_key);
      assert.deepEqual(now.log, before.log);
      assert.equal(now.cards, 3);
      assert.equal(await exported(second), cards);
      // A token of the first server's app key is good here.
      const search = await fetch(`${second.url}/card/v5/actions/search`, {
        method: 'POST',
        headers: { authorization: `Service ${token}`, 'content-type': 'application/json' },
        body: '{"identity":"alice"}',
      });
      assert.equal(search.status, 200);
      assert.equal(((await search.json()) as unknown[]).length, 2);
    } finally {
      await second.dispose();
    }
  });

  test('a store with cards, or a file that is not a dump, is refused', async () => {
    const used = await startInProcess();
    await postCard(used, 'dave', makeCard('dave').raw);
    await used.stop();
    const refused = await runServeToExit([
      '--import',
      dump,
      '--db',
      used.paths.store,
      '--port',
      '0',
    ]);
    assert.equal(refused.code, 4, refused.stderr);
    assert.match(refused.stderr, /IMPORT_NOT_EMPTY.*holds cards already/);
    const notADump = join(dir, 'cards.ndjson');
    writeFileSync(notADump, cards);
    const bad = await runServeToExit(['--import', notADump, '--memory', '--port', '0']);
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /not a dump header/);
  });

  test('a dump line an import refuses is named by its line in the file, with advice for a start', async () => {
    // The header, then the three cards with the second one's signatures cut off: line 3.
    const lines = readFileSync(dump, 'utf8').trimEnd().split('\n');
    const second = JSON.parse(lines[2] as string) as { signatures: unknown[] };
    lines[2] = JSON.stringify({ ...second, signatures: [] });
    const broken = join(dir, 'broken.ndjson');
    writeFileSync(broken, `${lines.join('\n')}\n`);
    const refused = await runServeToExit(['--import', broken, '--memory', '--port', '0']);
    assert.equal(refused.code, 4, refused.stderr);
    assert.match(refused.stderr, /IMPORT_INVALID.*\bline 3\b/, refused.stderr);
    // Its advice is a server's start: no store is left to import into again.
    assert.doesNotMatch(refused.stderr, /they stay|cards import/, refused.stderr);
    assert.match(refused.stderr, /fix that line of the --import dump/, refused.stderr);
  });

  test('a dump that cannot be written at stop still leaves the store closed: journal folded, lock released', async () => {
    // The dump's folder is there at start (checked) and gone at stop.
    const gone = makeTempDir();
    const server = await startInProcess({ args: ['--export-on-exit', join(gone, 'dump.ndjson')] });
    const erin = makeCard('erin');
    await postCard(server, 'erin', erin.raw);
    rmSync(gone, { recursive: true });
    await assert.rejects(server.stop(), { code: 'ENOENT' });
    const { store, journal, lock } = server.paths;
    assert.equal(existsSync(lock), false, 'the lock released');
    assert.equal(existsSync(journal), false, 'the journal folded into the store file');
    assert.match(readFileSync(store, 'utf8'), new RegExp(erin.id));
    rmSync(server.dir, { recursive: true, force: true });
  });
});
