/**
 * `cards faults add|list|clear`: the fault rules of a running `cards serve` (admin API,
 * /_cards/faults), for testing how an application copes with a service that fails.
 */
import { Option } from 'commander';
import type { AdminFlags } from '../../admin-access.js';
import { declare } from '../../command.js';
import { adminFlags, integer } from '../../flags.js';
import type { FaultAddFlags, FaultsResult } from './faults.js';

const faults = () => import('./faults.js');

// The faultable routes of the route table (core/fault-rule.ts FAULTABLE_ROUTES; a test holds
// this list to it): a declaration loads nothing of the table itself.
const HELP = `A rule matches requests by route name, one of: createCard, getCard, searchCards,
revokeCard, revokeCardById, health, keyknoxV1Pull, keyknoxV1Push, keyknoxV1Reset,
keyknoxV2Push, keyknoxV2Pull, keyknoxV2Keys, keyknoxV2Reset, pythiaBrainkey, pythiaPassword,
logCheckpoint, logProof, logTile; or a prefix only one of them starts with ("create", "get",
"search"; "revoke" is refused: it could be two). Admin and page routes are never faulted. A rule
also matches by method and token identity, with a probability and a count, and answers with a
row of the error table by name (the bytes the real refusal sends), after a delay, or drops the
connection. A faulted request changes nothing and is marked in \`cards requests\`. See
docs/test-double.md.`;

const listed = (r: FaultsResult): string =>
  r.faults.length === 0
    ? '(no fault rules)'
    : r.faults
        .map((f) =>
          [
            `#${f.id}`,
            f.route ?? 'any route',
            f.method,
            f.identity && `identity ${f.identity}`,
            f.probability < 1 && `p=${f.probability}`,
            f.delay !== undefined && `delay ${f.delay}ms`,
            f.error ?? (f.drop ? 'drop' : undefined),
            f.status,
            `fired ${f.hits}`,
            f.remaining !== null && `left ${f.remaining}`,
          ]
            .filter((part) => part !== undefined && part !== false && part !== '')
            .join('  '),
        )
        .join('\n');

export default [
  declare({
    name: 'faults',
    summary: "A running server's fault rules: failures, delays and dropped connections on purpose.",
  }),
  declare({
    name: 'faults add',
    summary: 'Make a running server fail on purpose: an error, a delay or a dropped connection.',
    flags: [
      adminFlags(),
      new Option('--route <name>', 'route name (createCard, getCard, …; a unique prefix)'),
      new Option('--method <method>', 'HTTP method'),
      new Option('--identity <id>', 'only requests whose token is for this identity'),
      new Option('--probability <p>', 'chance a matching request is faulted, above 0 to 1'),
      new Option('--count <n>', 'fault this many requests, then stop').argParser(
        integer(1, Number.MAX_SAFE_INTEGER),
      ),
      new Option('--error <name>', 'answer with this row of the error table (TOKEN_EXPIRED, …)'),
      new Option('--status <status>', "the row's other status (STORE_UNAVAILABLE: 503)").argParser(
        integer(100, 599),
      ),
      new Option('--delay <ms>', 'wait first: milliseconds, fixed (50) or a range (50-200)'),
      new Option('--drop', 'close the connection without an answer'),
    ],
    help: HELP,
    examples: [
      'cards faults add --route create --error STORE_UNAVAILABLE --count 1',
      'cards faults add --route get --delay 50-200 --probability 0.1',
      'cards faults add --route search --drop',
      'cards faults add --identity alice --error TOKEN_EXPIRED --count 1',
    ],
    run: async (ctx, options: FaultAddFlags) => (await faults()).addFault(ctx, options),
    text: (r: FaultsResult, s) => `${s.ok('added')}\n${listed(r)}`,
  }),
  declare({
    name: 'faults list',
    summary: 'The fault rules in force on a running server, and how often each fired.',
    flags: [adminFlags()],
    help: HELP,
    examples: ['cards faults list', 'cards faults list --json'],
    run: async (ctx, options: AdminFlags) => (await faults()).listFaults(ctx, options),
    text: (r: FaultsResult) => listed(r),
  }),
  declare({
    name: 'faults clear',
    summary: 'Remove every fault rule of a running server.',
    flags: [adminFlags()],
    examples: ['cards faults clear'],
    run: async (ctx, options: AdminFlags) => (await faults()).clearFaults(ctx, options),
    text: (r: { cleared: number }, s) => `${s.ok('cleared')} ${r.cleared} fault rule(s)`,
  }),
];
