/**
 * An identity's history over a real `cards serve`, whatever the identity holds: `.` and `..`
 * (which URL parsers drop as dot segments, percent-encoded or not) and a lone surrogate (no
 * UTF-8 form; no card holds one, so the server answers 404) travel as their JSON string with
 * `form=json`; the client writes every identity so, and the server refuses a form it does not
 * know.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AdminClient } from '../../src/client/admin-client.js';
import { postCard } from '../helpers/post-card.js';
import { type Served } from '../helpers/server.js';
import { startInProcess } from '../helpers/in-process-server.js';
import { makeCard } from './card-kit.js';

const ODD = ['.', '..', 'a/b', '100%', '%2E%2E', 'x?y#z', 'alice'];
let server: Served;

before(async () => {
  server = await startInProcess({ args: ['--quiet'] });
  for (const identity of ODD) await postCard(server, identity, makeCard(identity).raw);
});
after(() => server?.dispose());

const get = (path: string) => fetch(`${server.url}${path}`);

describe("an identity's history, whatever the identity holds", () => {
  test('the client writes . and .. as their JSON string (form=json), the rest plainly', async () => {
    const client = new AdminClient({ url: server.url });
    for (const identity of ODD) {
      const history = await client.json<{ identity: string; chains: unknown[] }>(
        'GET',
        'adminIdentity',
        { param: identity },
      );
      assert.equal(history.identity, identity);
      assert.equal(history.chains.length, 1);
    }
  });

  test('a lone surrogate reaches the server as itself: 404, no card has it', async () => {
    const client = new AdminClient({ url: server.url });
    await assert.rejects(client.json('GET', 'adminIdentity', { param: 'lone\ud800' }), {
      code: 'IDENTITY_NOT_FOUND',
    });
  });

  test('a form other than json, or a segment that is not a JSON string: QUERY_INVALID', async () => {
    for (const path of [
      '/_cards/identities/alice?form=text',
      '/_cards/identities/alice?form=json',
      `/_cards/identities/${encodeURIComponent('["alice"]')}?form=json`,
    ]) {
      const response = await get(path);
      assert.equal(response.status, 400, path);
      assert.equal(((await response.json()) as { code: string }).code, '30100', path);
    }
    const quoted = await get(`/_cards/identities/${encodeURIComponent('"alice"')}?form=json`);
    assert.equal(quoted.status, 200);
  });
});
