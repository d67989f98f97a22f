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

function compile(source: string): { status: number | null; output: string } {
  writeFileSync(join(dir, 'src', 'index.ts'), source);
  const run = spawnSync(process.execPath, [tsc, '-p', dir], { encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

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
});
after(() => rmSync(dir, { recursive: true, force: true }));

test('a consumer package compiles against cards, cards/core, cards/crypto and cards/client', () => {
  const { status, output } = compile(consumer);
  assert.equal(status, 0, output);
});

test('a consumer that misuses the API is refused by the declarations', () => {
  const wrong = consumer
    .replace("identity: 'alice'", 'identity: 42')
    .replace("'CARD_NOT_FOUND'", "'NO_SUCH_CODE'");
  const { status, output } = compile(wrong);
  assert.notEqual(status, 0);
  assert.match(output, /index\.ts\(\d+,\d+\): error TS2322/, output);
  assert.match(output, /index\.ts\(\d+,\d+\): error TS2345/, output);
});
