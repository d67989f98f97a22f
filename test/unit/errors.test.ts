import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CardsError, ERRORS, EXIT, codeForWire, type ErrorCode } from '../../src/core/errors.js';

test('every error code has a distinct wire number, a real HTTP status and a documented exit status', () => {
  const wires = new Set<number>();
  for (const code of Object.keys(ERRORS) as ErrorCode[]) {
    const info = ERRORS[code];
    assert.ok(!wires.has(info.wire), `${code}: wire ${info.wire} used twice`);
    wires.add(info.wire);
    assert.ok(info.status >= 400 && info.status < 600, code);
    assert.ok((Object.values(EXIT) as number[]).includes(info.exit), code);
    assert.equal(codeForWire(info.wire), code);
    assert.equal(codeForWire(String(info.wire)), code);
    assert.ok(info.message.length > 0);
  }
  assert.equal(new CardsError('TOKEN_EXPIRED').info.wire, 20304);
  assert.equal(new CardsError('CARD_NOT_FOUND').info.status, 404);
});

test('a status other than the usual is taken only where the error table allows it', () => {
  const away = new CardsError('STORE_UNAVAILABLE', 'The database is away.', { status: 503 });
  assert.equal(away.status, 503);
  assert.equal(new CardsError('STORE_UNAVAILABLE').status, 500);
  // A code the table gives one status keeps it, whatever a caller asks for.
  assert.equal(new CardsError('SERVER_BUSY', undefined, { status: 503 }).status, 503);
  assert.equal(new CardsError('INTERNAL', undefined, { status: 503 }).status, 500);
});

test('the error table of docs/errors.md lists every code with its wire number, status and exit', async () => {
  const { readFileSync } = await import('node:fs');
  const table = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');
  const rows = new Set(
    table
      .split('\n')
      .filter((line) => line.startsWith('|'))
      .map((line) =>
        line
          .split('|')
          .slice(1, 5)
          .map((cell) => cell.trim())
          .join(' '),
      ),
  );
  for (const code of Object.keys(ERRORS) as ErrorCode[]) {
    const { wire, status, exit } = ERRORS[code];
    assert.ok(
      rows.has(`${wire} ${status} ${exit} \`${code}\``),
      `docs/errors.md is missing ${code}`,
    );
  }
});

test('the README points to the error table', async () => {
  const { readFileSync } = await import('node:fs');
  const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
  assert.match(readme, /\]\(docs\/errors\.md(#[a-z-]+)?\)/);
});
