/**
 * README and `engines` name one Node.js version, and every production dependency installs on it
 * (cookie@2, through fastify's light-my-request, declares node >= 22, so
 * `npm ci` warned EBADENGINE on Node 20; package.json pins light-my-request 6.6.0, on cookie@1).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

const root = new URL('../../../', import.meta.url);
const read = (name: string): string => readFileSync(new URL(name, root), 'utf8');

test('engines, README and the production dependencies agree on the Node.js version', () => {
  const pkg = JSON.parse(read('package.json')) as { engines: { node: string } };
  const ours = /^>=(\d+)\.(\d+)$/.exec(pkg.engines.node);
  assert.ok(ours, pkg.engines.node);
  const [major, minor] = [Number(ours[1]), Number(ours[2])];
  assert.match(read('README.md'), new RegExp(`Needs Node\\.js ${major}\\.${minor} or later`));
  const lock = JSON.parse(read('package-lock.json')) as {
    packages: Record<string, { dev?: boolean; engines?: { node?: string } }>;
  };
  let checked = 0;
  for (const [path, entry] of Object.entries(lock.packages)) {
    const wanted = entry.engines?.node;
    if (path === '' || entry.dev || wanted === undefined) continue;
    checked++;
    assert.ok(
      satisfies([major, minor, 0], wanted),
      `${path} needs node ${wanted}, but engines says ${pkg.engines.node}`,
    );
  }
  assert.ok(checked > 0, 'no production dependency declares engines: the check ran on nothing');
});

/**
 * Whether `version` meets an npm range made of `>=X.Y.Z`, `^X.Y.Z`, a bare `X[.Y[.Z]]` (npm's
 * X-range: `20` is any 20.x, as lru-cache's `20 || >=22` says) and `*`, joined by `||`.
 */
function satisfies(version: number[], range: string): boolean {
  const cmp = (a: number[], b: number[]): number =>
    (a[0]! - b[0]!) * 1e6 + (a[1]! - b[1]!) * 1e3 + (a[2]! - b[2]!);
  return range.split('||').some((alternative) => {
    const text = alternative.trim().replace(/\.x/g, '');
    if (text === '*' || text === '') return true;
    const m = /^(>=|\^)?\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(text);
    if (!m) return false;
    if (m[1] === undefined)
      return [m[2], m[3], m[4]].every(
        (part, i) => part === undefined || Number(part) === version[i],
      );
    const floor = [Number(m[2]), Number(m[3] ?? 0), Number(m[4] ?? 0)];
    return cmp(version, floor) >= 0 && (m[1] === '>=' || version[0] === floor[0]);
  });
}
