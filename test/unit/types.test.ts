/**
 * The package ships type declarations for every entry point (package.json `exports`, a `types`
 * condition each): a small consumer package that installs `cards` compiles against them with
 * `tsc` under `strict`, and a consumer that misuses the API is refused — so the declarations
 * are really read, not an implicit `any`.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
let dir: string;

const consumer = `
import { buildSnapshot, cardIdOf, CardsError, type ErrorCode } from 'cards';
import { decodeSnapshot, LIMITS, PROFILES } from 'cards/core';
import { generatePrivateKey, signCard } from 'cards/crypto';
import { CardsClient, fixedToken } from 'cards/client';

const key = generatePrivateKey();
const snapshot = buildSnapshot({
  identity: 'alice',
  publicKey: key.publicKey.spki,
  createdAt: 1_700_000_000,
});
const card = signCard(snapshot, { self: key });
const id: string = cardIdOf(snapshot.bytes);
const code: ErrorCode = new CardsError('CARD_NOT_FOUND').code;
const max: number = LIMITS.identityMax;
const back = decodeSnapshot(card.content_snapshot, 'card');
export const client = new CardsClient({
  url: 'http://127.0.0.1:8080',
  profile: PROFILES.service,
  tokens: fixedToken('token'),
});
export const used = [id, code, max, back];
`;

/**
 * One `tsc` run over both consumers: the declarations (and @types/node, skipLibCheck off) are
 * read and checked once. Its messages name the file, relative to the consumer's folder.
 */
function compileBoth(good: string, wrong: string): { status: number | null; output: string } {
  writeFileSync(join(dir, 'src', 'good.ts'), good);
  writeFileSync(join(dir, 'src', 'wrong.ts'), wrong);
  const run = spawnSync(process.execPath, [tsc, '-p', dir], { cwd: dir, encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/** The lines of tsc's output that open a message (it continues one on indented lines). */
const messages = (output: string): string[] =>
  output.split('\n').filter((line) => line.trim() !== '' && !/^\s/.test(line));

let result: { status: number | null; output: string };

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'cards-types-'));
  mkdirSync(join(dir, 'src'));
  mkdirSync(join(dir, 'node_modules', '@types'), { recursive: true });
  // What `npm install cards` gives: the package under node_modules (its own dependencies
  // resolve from where it really lives), and the consumer's own @types/node.
  symlinkSync(root, join(dir, 'node_modules', 'cards'), 'dir');
  symlinkSync(
    join(root, 'node_modules', '@types', 'node'),
    join(dir, 'node_modules', '@types', 'node'),
    'dir',
  );
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', type: 'module' }));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        types: ['node'],
      },
      include: ['src'],
    }),
  );
  const wrong = consumer
    .replace("identity: 'alice'", 'identity: 42')
    .replace("'CARD_NOT_FOUND'", "'NO_SUCH_CODE'");
  result = compileBoth(consumer, wrong);
});
after(() => rmSync(dir, { recursive: true, force: true }));

test('a consumer package compiles against cards, cards/core, cards/crypto and cards/client', () => {
  // Every message is about the misusing consumer: none about this one, none of no file.
  const besides = messages(result.output).filter((line) => !line.startsWith('src/wrong.ts('));
  assert.deepEqual(besides, [], result.output);
});

test('a consumer that misuses the API is refused by the declarations', () => {
  assert.notEqual(result.status, 0);
  assert.match(result.output, /^src\/wrong\.ts\(\d+,\d+\): error TS2322/m, result.output);
  assert.match(result.output, /^src\/wrong\.ts\(\d+,\d+\): error TS2345/m, result.output);
});
