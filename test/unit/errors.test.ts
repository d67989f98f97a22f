import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { EXIT, EXIT_STATUS } from '../../src/cli/exit-status.js';
import {
  CardsError,
  LOCAL_ERRORS,
  WIRE_ERRORS,
  codeForWire,
  isWireError,
  numberOf,
  wireErrorOf,
  type ErrorCode,
  type LocalCode,
  type WireCode,
} from '../../src/core/errors.js';

const wireCodes = Object.keys(WIRE_ERRORS) as WireCode[];
const localCodes = Object.keys(LOCAL_ERRORS) as LocalCode[];
const allCodes: ErrorCode[] = [...wireCodes, ...localCodes];

test('every code has a distinct number and a documented exit status; a wire code a real HTTP status', () => {
  const numbers = new Set<number>();
  for (const code of allCodes) {
    const number = numberOf(code);
    assert.ok(!numbers.has(number), `${code}: number ${number} used twice`);
    numbers.add(number);
    assert.ok((Object.values(EXIT) as number[]).includes(EXIT_STATUS[code]), code);
    assert.ok(new CardsError(code).message.length > 0, code);
  }
  assert.equal(Object.keys(EXIT_STATUS).length, allCodes.length, 'the exit table has no extras');
  for (const code of wireCodes) {
    const { wire, status } = WIRE_ERRORS[code];
    assert.ok(status >= 400 && status < 600, code);
    assert.equal(codeForWire(wire), code);
    assert.equal(codeForWire(String(wire)), code);
    assert.equal(new CardsError(code).status, status);
  }
  assert.equal(new CardsError('TOKEN_EXPIRED').number, 20304);
  assert.equal(new CardsError('CARD_NOT_FOUND').status, 404);
});

test('a code of the CLI alone has no HTTP status, is never read from a wire, and leaves a server as INTERNAL', () => {
  for (const code of localCodes) {
    const err = new CardsError(code);
    assert.equal(err.status, undefined, code);
    assert.equal(isWireError(err), false, code);
    assert.equal(codeForWire(LOCAL_ERRORS[code].number), undefined, code);
    const sent = wireErrorOf(err);
    assert.equal(sent.code, 'INTERNAL');
    assert.equal(sent.status, 500);
    assert.equal(sent.cause, err, 'kept for the operator');
  }
  const refusal = new CardsError('CARD_NOT_FOUND');
  assert.equal(wireErrorOf(refusal), refusal);
  // Asking the wire table for a code of the CLI alone does not compile.
  // @ts-expect-error USAGE is not a code a server sends
  assert.equal(WIRE_ERRORS.USAGE, undefined);
});

test('each code sits in its documented block (docs/errors.md, "The codes sit in blocks")', () => {
  const inBlock = (n: number, blocks: [number, number][]): boolean =>
    blocks.some(([from, to]) => n >= from && n <= to);
  const wireBlocks: [number, number][] = [
    [10000, 10011],
    [10101, 10199],
    [20300, 20308],
    [20320, 20399],
    [30001, 30002],
    [30100, 30199],
    [40001, 40420],
    [50001, 50099],
    [60001, 60099],
    [90007, 90007],
    [91001, 91099],
  ];
  for (const code of wireCodes)
    assert.ok(inBlock(WIRE_ERRORS[code].wire, wireBlocks), `${code} ${WIRE_ERRORS[code].wire}`);
  for (const code of localCodes)
    assert.ok(
      inBlock(LOCAL_ERRORS[code].number, [
        [90001, 90099],
        [91001, 91099],
      ]),
      code,
    );
});

test('a status other than the usual is taken only where the error table allows it', () => {
  const away = new CardsError('STORE_UNAVAILABLE', 'The database is away.', { status: 503 });
  assert.equal(away.status, 503);
  assert.equal(new CardsError('STORE_UNAVAILABLE').status, 500);
  // A code the table gives one status keeps it, whatever a caller asks for.
  assert.equal(new CardsError('SERVER_BUSY', undefined, { status: 503 }).status, 503);
  assert.equal(new CardsError('INTERNAL', undefined, { status: 503 }).status, 500);
});

test('docs/errors.md lists every code in its table: a server code with its status, a CLI code without', () => {
  const doc = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');
  const cli = doc.indexOf('## Codes of the CLI');
  const exits = doc.indexOf('## Exit statuses');
  assert.ok(cli > 0 && exits > cli);
  const rows = (text: string, columns: number): Set<string> =>
    new Set(
      text
        .split('\n')
        .filter((line) => line.startsWith('|'))
        .map((line) =>
          line
            .split('|')
            .slice(1, 1 + columns)
            .map((cell) => cell.trim())
            .join(' '),
        ),
    );
  const serverRows = rows(doc.slice(0, cli), 4);
  const cliRows = rows(doc.slice(cli, exits), 3);
  for (const code of wireCodes) {
    const { wire, status } = WIRE_ERRORS[code];
    const row = `${wire} ${status} ${EXIT_STATUS[code]} \`${code}\``;
    assert.ok(serverRows.has(row), `docs/errors.md is missing ${code}: ${row}`);
  }
  for (const code of localCodes) {
    const row = `${LOCAL_ERRORS[code].number} ${EXIT_STATUS[code]} \`${code}\``;
    assert.ok(cliRows.has(row), `docs/errors.md is missing ${code}: ${row}`);
    assert.ok(!doc.slice(0, cli).includes(`\`${code}\``), `${code} is listed as a server's code`);
  }
});

test('the README points to the error table', () => {
  const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
  assert.match(readme, /\]\(docs\/errors\.md(#[a-z-]+)?\)/);
});

test('docs/serve.md and docs/scaling.md give the exit status of a bad PostgreSQL configuration the table gives', () => {
  const codes = [
    'STORE_URL_INVALID',
    'STORE_AUTH_FAILED',
    'STORE_DATABASE_UNKNOWN',
    'STORE_UNREACHABLE',
  ] as const;
  const status = EXIT_STATUS.STORE_URL_INVALID;
  for (const code of codes) assert.equal(EXIT_STATUS[code], status, code);
  for (const name of ['serve.md', 'scaling.md']) {
    const doc = readFileSync(new URL(`../../../docs/${name}`, import.meta.url), 'utf8');
    const said = [...doc.matchAll(/exit status (\d+)/g)].filter((m) =>
      /password|STORE_URL_INVALID|PostgreSQL|database/i.test(
        doc.slice(Math.max(0, (m.index ?? 0) - 200), (m.index ?? 0) + 200),
      ),
    );
    assert.ok(said.length > 0, `${name} says how start-up ends on a bad PostgreSQL URL`);
    for (const m of said) assert.equal(Number(m[1]), status, `${name}: "${m[0]}"`);
  }
});
