/** `cards log audit`: the whole log recomputed and checked against the registry. */
import { Option } from 'commander';
import { EXIT } from '../../exit-status.js';
import { declare } from '../../command.js';
import { adminTokenFlag, concurrencyFlag, connectionFlags, logKeyFlag } from '../../flags.js';
import { plural } from '../../text.js';
import type { LogAuditOptions, LogAuditResult } from './audit.js';

export default [
  declare({ name: 'log', summary: 'The transparency log.' }),
  declare({
    name: 'log audit',
    summary:
      'Recompute the log from its entries; check it against the checkpoint and the registry.',
    flags: [
      // Cards are fetched from the card routes (a card connection) and listed by the admin API.
      connectionFlags(),
      adminTokenFlag(),
      logKeyFlag("verify the log's checkpoint with this key"),
      new Option(
        '--no-cards',
        'check the tree only, not that each entry is a card the registry serves',
      ),
      concurrencyFlag(),
    ],
    examples: [
      'cards log audit --url http://127.0.0.1:8080 --log-key "$LOG_KEY"',
      'cards log audit --url https://cards.example.com --no-cards --json',
    ],
    run: async (ctx, options: LogAuditOptions) =>
      (await import('./audit.js')).logAudit(ctx, options),
    verdict: (r: LogAuditResult) =>
      r.problems.length === 0
        ? undefined
        : { exit: EXIT.verificationFailed, summary: `log audit: ${r.problems.length} problem(s).` },
    text: (r: LogAuditResult, s) =>
      [
        `${r.problems.length === 0 ? s.ok('✔') : s.bad('✖')} ${r.origin}: ${plural(r.size, 'entry', 'entries')} recomputed, root matches the ${r.signatureChecked ? 'signed' : 'served (unverified: no --log-key)'} checkpoint; ${plural(r.tilesChecked, 'hash tile')} compared`,
        `  cards served by the registry: ${r.cardsChecked}; admin list: ${r.adminList}; ${r.seconds.toFixed(1)} s`,
        ...r.problems.slice(0, 50).map((p) => `  ${s.bad(p)}`),
      ].join('\n'),
  }),
];
