/** `cards inspect`: a card decoded and verified offline. */
import { Argument, Option } from 'commander';
import { EXIT } from '../../exit-status.js';
import { declare } from '../../command.js';
import { cardIdInput, connectionFlags, repeatable, serviceKeyFlag } from '../../flags.js';
import { when } from '../../text.js';
import type { InspectOptions, InspectResult } from './inspect.js';

/**
 * A snapshot field as its JSON type shows it: a string in quotes. The view's strings come
 * escaped for the terminal already (output.ts), so a string is quoted, not stringified again,
 * which would double each escape's backslash.
 */
const quoted = (v: unknown): string =>
  typeof v === 'string' ? `"${v.replaceAll('"', '\\"')}"` : JSON.stringify(v);

export default declare({
  name: 'inspect',
  summary:
    'Decode and verify a card offline: fields, id, signatures, limits. Exit 5 if anything fails.',
  args: [
    cardIdInput(
      new Argument('[input]', 'card JSON file, - for stdin (default), or a CARD_ID to fetch'),
      'id-or-file',
    ),
  ],
  flags: [
    connectionFlags(),
    serviceKeyFlag(),
    new Option('--trust <name=key>', 'a public key for another signer; repeatable').argParser(
      repeatable,
    ),
  ],
  help: `The service signature is checked with --service-key, else with the key a local \`cards serve\`
keeps beside its store (--db, CARDS_DB, ./cards.json; print it with \`cards key service\`);
without either, the report says it was NOT checked.`,
  examples: [
    'cards inspect card.json',
    'cards build --identity alice | cards inspect -',
    'cards inspect 8714f02c --service-key "$SERVICE_KEY" --trust app=app.pub --json',
  ],
  run: async (ctx, options: InspectOptions, [input]) =>
    (await import('./inspect.js')).inspect(ctx, {
      ...options,
      ...(input !== undefined && { input }),
    }),
  verdict: (r: InspectResult) => {
    if (r.ok) return undefined;
    const failures = [
      ...r.violations.map((v) => v.code),
      ...r.signatures.filter((s) => s.status === 'invalid').map((s) => `signature "${s.signer}"`),
      ...(r.expectedId !== null && r.expectedId !== r.id ? ['id mismatch'] : []),
    ];
    return {
      exit: EXIT.verificationFailed,
      summary: `card ${r.id ?? '(unreadable)'} did not verify: ${failures.join(', ')}`,
    };
  },
  text: (r: InspectResult, s) => {
    // One label column for every section, as wide as the widest label.
    const labels = [
      'id',
      ...Object.keys(r.snapshot ?? {}),
      ...r.signatures.map((sig) => sig.signer),
      ...r.violations.map((v) => v.field),
      'service-key',
    ];
    const width = Math.max(...labels.map((l) => l.length)) + 2;
    const row = (label: string, value: string): string => `  ${label.padEnd(width)}${value}`;
    const out = [
      `${s.bold('card')} ${r.id ? s.id(r.id) : s.bad('(unreadable)')}  ${r.ok ? s.ok('OK') : s.bad('FAILED')}${r.service.checked ? '' : s.warn(' (service signature NOT checked)')}  ${s.dim(r.source)}`,
    ];
    if (r.expectedId !== null)
      out.push(
        row('id', r.expectedId === r.id ? s.ok('matches') : s.bad(`expected ${r.expectedId}`)),
      );
    for (const [k, v] of Object.entries(r.snapshot ?? {}))
      out.push(
        row(k, k === 'created_at' && typeof v === 'number' ? `${v} (${when(v)})` : quoted(v)),
      );
    out.push(s.bold('signatures'));
    const statusWidth = Math.max(...r.signatures.map((sig) => sig.status.length), 0) + 2;
    for (const sig of r.signatures) {
      const paint = sig.status === 'valid' ? s.ok : sig.status === 'invalid' ? s.bad : s.warn;
      const status = paint(sig.status) + ' '.repeat(statusWidth - sig.status.length);
      const algorithm = sig.algorithm ? ` (${sig.algorithm})` : '';
      out.push(row(sig.signer, `${status}${s.dim(sig.reason + algorithm)}`));
      if (sig.extraSnapshot !== null) out.push(row('', `extra: ${sig.extraSnapshot}`));
    }
    out.push(
      row(
        'service-key',
        !r.service.checked
          ? s.warn(`"${r.service.signer}" signature NOT checked: ${r.service.hint ?? ''}`)
          : r.service.hint
            ? s.bad(r.service.hint)
            : s.dim(`"${r.service.signer}" checked with ${r.service.keyFrom ?? 'the given key'}`),
      ),
    );
    if (r.violations.length) {
      out.push(s.bold('violations'));
      for (const v of r.violations)
        out.push(row(v.field, `${s.bad(v.code)} (${v.wire}) ${v.message}`));
    }
    return out.join('\n');
  },
});
