/**
 * A Pythia `brainkey_id` holds to the text rule (docs/http.md, "Text"), against a real
 * `cards serve --compat virgil` on port 0. The brainkey tweak hashes the id's UTF-8, which
 * writes a lone surrogate as U+FFFD, so the ids "x\uD800", "x\uDBFF" and "x\uFFFD" gave one
 * and the same seed (200 each): three backups a client keeps apart under one brainkey. Such an
 * id, and one holding U+0000, is now 400 60004, before any pairing or throttle token is spent.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { E3KIT_APP } from '../helpers/e3kit-call.js';
import { startInProcess, type InProcessServer } from '../helpers/in-process-server.js';
import { removeTempDirs } from '../helpers/server.js';

after(removeTempDirs);

/** A compressed BLS12-381 G1 point the library takes (tag 2, then 48 bytes of 1). */
const BLINDED = Buffer.concat([Buffer.from([2]), Buffer.alloc(48, 1)]).toString('base64');

async function brainkey(server: InProcessServer, id: string) {
  const token = await server.token('alice', { format: 'stock', appId: E3KIT_APP });
  const response = await fetch(`${server.url}/pythia/v1/brainkey`, {
    method: 'POST',
    headers: { authorization: `Virgil ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ blinded_password: BLINDED, brainkey_id: id }),
  });
  const body = (await response.json()) as { seed?: string; code?: number };
  return { status: response.status, seed: body.seed, code: body.code };
}

test('a brainkey_id that is not well-formed text is 400 60004; text ids keep their own seeds', async (t) => {
  const server = await startInProcess({
    args: ['--compat', 'virgil', '--quiet', '--no-log', '--pythia-throttle', 'off'],
  });
  t.after(() => server.dispose());
  const replacement = await brainkey(server, 'x\uFFFD');
  assert.equal(replacement.status, 200);
  for (const id of ['x\uD800', 'x\uDBFF', '\uDC00x', 'x\u0000']) {
    const answer = await brainkey(server, id);
    assert.deepEqual([answer.status, answer.code], [400, 60004], JSON.stringify(id));
  }
  const a = await brainkey(server, 'a');
  const b = await brainkey(server, 'b');
  assert.equal(a.status, 200);
  assert.notEqual(a.seed, b.seed);
  assert.notEqual(a.seed, replacement.seed);
  const info = (await (await fetch(`${server.url}/_cards/info`)).json()) as {
    pythia: { brainkeys: number };
  };
  assert.equal(info.pythia.brainkeys, 3, 'the refused ones were not served');
});
