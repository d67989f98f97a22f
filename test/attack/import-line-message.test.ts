/**
 * An import line that is not a card record is refused with a message that reads as one
 * sentence: the record's defect, the line, what was stored. The defect's own full stop was kept
 * before the line's ("… (64 lowercase hex characters)..").
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startInProcess } from '../helpers/in-process-server.js';

test('a line that is not a card record: IMPORT_INVALID naming it, one full stop', async (t) => {
  const server = await startInProcess({ args: ['--quiet', '--no-log'] });
  t.after(() => server.dispose());
  for (const line of ['{"id":"x"}', '{"id":"' + 'a'.repeat(64) + '"}', '[]']) {
    const response = await fetch(`${server.url}/_cards/import?append=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: `${line}\n`,
    });
    const body = (await response.json()) as { code: string; message: string };
    assert.equal(response.status, 400, line);
    assert.equal(body.code, '30102', line);
    assert.match(body.message, /^Import line 1 /, line);
    assert.doesNotMatch(body.message, /[.][.]/, `${line}: ${body.message}`);
  }
});
