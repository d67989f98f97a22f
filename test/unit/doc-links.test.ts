/**
 * Every relative link in README.md and docs/*.md leads somewhere: the file
 * exists, and a `#anchor` into a Markdown file names one of its headings (GitHub's slugs).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The Markdown outside fenced code blocks and inline code spans. */
function prose(markdown: string): string {
  return markdown
    .replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '')
    .replace(/`[^`\n]*`/g, (span) => (span.includes('](') ? '' : span));
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const [, heading] of prose(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(heading!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** [text](target) links, images included; not absolute URLs. */
function relativeLinks(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

test('slug follows GitHub for the headings the docs use', () => {
  assert.equal(slug('States in `cards get`'), 'states-in-cards-get');
  assert.equal(
    slug('On PostgreSQL: several servers, one service'),
    'on-postgresql-several-servers-one-service',
  );
  assert.equal(slug('Settings, profiles and the keystore'), 'settings-profiles-and-the-keystore');
});

test('a broken link or anchor is found', () => {
  assert.deepEqual(relativeLinks('see [a](docs/x.md#y) and [b](https://e.org) `[c](d.md)`'), [
    'docs/x.md#y',
  ]);
  assert.ok(!anchors('# Title\n\n## Exit statuses\n').has('exit-status'));
  assert.ok(anchors('# Title\n\n## Exit statuses\n').has('exit-statuses'));
});

test('every relative link in README.md and docs/*.md resolves', () => {
  const files = [
    'README.md',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  const broken: string[] = [];
  let checked = 0;
  for (const file of files) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const link of relativeLinks(text)) {
      checked++;
      const [path = '', anchor] = link.split('#', 2);
      const target = path === '' ? join(ROOT, file) : join(ROOT, dirname(file), decodeURI(path));
      if (!existsSync(target)) {
        broken.push(`${file}: ${link} (no such file)`);
        continue;
      }
      if (anchor !== undefined && target.endsWith('.md')) {
        if (!anchors(readFileSync(target, 'utf8')).has(decodeURIComponent(anchor))) {
          broken.push(`${file}: ${link} (no such heading)`);
        }
      }
    }
  }
  assert.deepEqual(broken, []);
  // The README links every docs page, so a page is never orphaned.
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  for (const file of files.filter((f) => f.startsWith('docs/'))) {
    assert.ok(
      relativeLinks(readme).some((l) => l.split('#')[0] === file),
      `README does not link ${file}`,
    );
  }
  assert.ok(checked >= 10, `only ${checked} links found: the link pattern is broken`);
});
