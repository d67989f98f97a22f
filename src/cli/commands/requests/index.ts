/** `cards requests`: a server's request journal, filtered, followed, or checked (admin API). */
import { Option } from 'commander';
import { declare } from '../../command.js';
import { EXIT } from '../../exit-status.js';
import { ADMIN_TOKEN_HELP, adminFlags, integer } from '../../flags.js';
import { plural, type Style } from '../../text.js';
import type { JournalEntry, RequestsFlags, RequestsResult } from './requests.js';

const requestLine = (q: JournalEntry): string =>
  `${q.time}  ${q.method.padEnd(4)} ${q.path}  ${q.route || '-'}  ${q.status === 0 ? 'dropped' : q.status}${q.code ? ` ${q.code}` : ''}  ${q.identity || '-'}  ${q.ms}ms${q.fault ? `  [${q.fault}]` : ''}`;

function expectation(r: RequestsResult): string {
  const e = r.expect;
  if (!e) return '';
  const what = `${e.route}${e.status === null ? '' : ` ${e.status}`}`;
  const wanted =
    e.count !== undefined
      ? `exactly ${plural(e.count, 'time')}`
      : `at least ${plural(e.atLeast ?? 1, 'time')}`;
  return `expected ${what} ${wanted}; seen ${plural(e.seen, 'time')}`;
}

function requestsText(r: RequestsResult, s: Style): string {
  const lines = r.requests.map(requestLine);
  if (!r.expect) return lines.length === 0 ? s.dim('(no requests)') : lines.join('\n');
  const head = `${r.expect.holds ? s.ok('ok') : s.bad('failed')}: ${expectation(r)}`;
  const seen =
    lines.length === 0
      ? [s.dim(`  (no ${r.expect.route} request in the journal)`)]
      : lines.map((l) => `  ${l}`);
  return [head, `${r.expect.route} requests in the journal (newest first):`, ...seen].join('\n');
}

export default declare({
  name: 'requests',
  summary: 'The requests a server served (its request journal): filter, follow, or expect.',
  flags: [
    adminFlags(),
    new Option('--limit <n>', 'how many, newest first (default 100; with --follow 10 to begin)'),
    new Option(
      '--route <name>',
      "only this route (the route table's name, or a unique prefix: create)",
    ),
    new Option('--status <status>', 'only this status (201) or class (4xx)'),
    new Option('--identity <id>', 'only requests whose token was for this identity'),
    new Option(
      '--since <time>',
      'only requests since an ISO 8601 time or a span back (30s, 5m, 2h)',
    ),
    new Option('--follow', 'keep printing requests as they are served (Ctrl-C stops)'),
    new Option(
      '--expect <route status>',
      "check the journal holds such requests ('create 201'): exit 0 if so, 1 if not",
    ),
    new Option('--count <n>', 'with --expect: exactly N').argParser(integer(0, 1_000_000)),
    new Option('--at-least <n>', 'with --expect: N or more (default 1)').argParser(
      integer(0, 1_000_000),
    ),
  ],
  help: `${ADMIN_TOKEN_HELP}

Each line: time, method, path, route, status (dropped: a fault closed the connection), error
code, identity, ms, and [fault N: …] when a fault rule answered instead of the route. The
journal keeps the last --journal-size requests of \`cards serve\` (1000 by default); the
page's own requests, the journal's reads and /metrics are not in it.

--expect checks everything the journal keeps, with the other filters (--identity, --since,
--status) applied: a CI step after an application's tests. It prints the route's requests
either way, and exits 5 (VERIFICATION_FAILED) when the expectation does not hold.`,
  examples: [
    'cards requests --limit 20',
    'cards requests --route create --status 4xx --since 5m',
    'cards requests --follow',
    "cards requests --expect 'create 201' --count 2",
    "cards requests --expect 'search 200' --at-least 1 --identity alice",
  ],
  run: async (ctx, options: RequestsFlags) =>
    (await import('./requests.js')).requests(ctx, options, requestLine),
  text: (r: RequestsResult, s) => requestsText(r, s),
  verdict: (r: RequestsResult) =>
    r.expect && !r.expect.holds
      ? { exit: EXIT.verificationFailed, summary: expectation(r) }
      : undefined,
});
