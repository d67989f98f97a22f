/**
 * The text form of each command's result, for people. Pure functions of the result and a
 * Style (colours come from output.ts, the only module that loads chalk).
 */
import type { ListResult } from './admin-access.js';
import type { HistoryResult, RequestsResult } from './commands/admin.js';
import type { BuildResult } from './commands/build.js';
import type { ConfigChange, ConfigResult } from './commands/config.js';
import type { PublishResult } from './commands/create.js';
import type { GetResult } from './commands/get.js';
import type { InitResult } from './commands/init.js';
import type { InspectResult } from './commands/inspect.js';
import type { JwtResult } from './commands/jwt.js';
import type { KeyListResult, KeyPublicResult } from './commands/key.js';
import type { KeygenResult } from './commands/keygen.js';
import type { RevokeResult } from './commands/revoke.js';
import type { RotateResult } from './commands/rotate.js';
import type { SearchResult } from './commands/search.js';
import type { SeedResult } from './commands/seed.js';
import type { UnregisterResult } from './commands/unregister.js';
import type { LogAuditResult } from './commands/log-audit.js';
import type { MonitorEvent, MonitorResult } from './commands/monitor.js';
import type { VerifyResult } from './commands/verify.js';
import type { CardView } from './card-builder.js';

/** The colours a view may use; output.ts builds one from chalk (or plain, without colour). */
export interface Style {
  readonly ok: (s: string) => string;
  readonly bad: (s: string) => string;
  readonly warn: (s: string) => string;
  readonly dim: (s: string) => string;
  readonly bold: (s: string) => string;
  readonly id: (s: string) => string;
}

const when = (seconds: number): string =>
  Number.isSafeInteger(seconds) && seconds > 0 && seconds < 1e11
    ? new Date(seconds * 1000).toISOString().replace('.000Z', 'Z')
    : String(seconds);

/**
 * The distinctive end of a base64 DER SPKI key: every Ed25519 key starts with the same 16
 * characters (the SPKI header), so a key is told apart by its tail (`cards key public` prints
 * the whole key to compare).
 */
const keyTail = (key: string): string => {
  const bare = key.replace(/=+$/, '');
  return bare.length > 14 ? `…${bare.slice(-12)}` : key || '(none)';
};

function cardLines(v: CardView, s: Style): string[] {
  const lines = [
    `  identity     ${v.identity}`,
    `  public key   ${v.publicKey || s.dim('(empty: a revoking card)')}`,
    `  created at   ${when(v.createdAt)}`,
    `  previous     ${v.previousCardId ?? s.dim('(none)')}`,
    `  signers      ${v.signers.join(', ')}`,
  ];
  for (const [signer, extra] of Object.entries(v.extras))
    lines.push(`  extra (${signer})  ${extra}`);
  return lines;
}

const stateColour = (state: string, s: Style): string =>
  state === 'active' ? s.ok(state) : state === 'superseded' ? s.warn(state) : s.bad(state);

/** The transparency-log commands (verify, monitor, log audit). */
const eventText = (e: MonitorEvent, s: Style): string =>
  `  #${e.index} ${e.kind.padEnd(11)} ${s.id(e.id)}${e.publicKey ? ` key ${e.publicKey}` : ''}${e.unexpected ? ` ${s.bad('UNEXPECTED KEY')}` : ''}`;

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

const LOG_TEXT = {
  verify: (r: VerifyResult, s: Style) =>
    [
      `${s.ok('✔')} card ${s.id(r.id)} is entry ${r.index} of ${r.origin} (tree size ${r.treeSize})`,
      r.witnesses.length > 0 ? `  cosigned by ${r.witnesses.join(', ')}` : '',
      r.previousSize === null
        ? s.dim('  first checkpoint seen from this log: remembered')
        : `  consistent with the checkpoint accepted before (size ${r.previousSize})`,
    ]
      .filter(Boolean)
      .join('\n'),
  monitor: (r: MonitorResult, s: Style) =>
    [
      `${r.identity} in ${r.origin}: entries ${r.from}–${r.to}, ${r.events.length} card(s)`,
      ...r.events.map((e) => eventText(e, s)),
    ].join('\n'),
  logAudit: (r: LogAuditResult, s: Style) =>
    [
      `${r.problems.length === 0 ? s.ok('✔') : s.bad('✖')} ${r.origin}: ${plural(r.size, 'entry', 'entries')} recomputed, root matches the ${r.signatureChecked ? 'signed' : 'served (unverified: no --log-key)'} checkpoint; ${plural(r.tilesChecked, 'hash tile', 'hash tiles')} compared`,
      `  cards served by the registry: ${r.cardsChecked}; admin list: ${r.adminList}; ${r.seconds.toFixed(1)} s`,
      ...r.problems.slice(0, 50).map((p) => `  ${s.bad(p)}`),
    ].join('\n'),
};

export const TEXT = {
  keygen: (r: KeygenResult, s: Style) =>
    [
      `${s.bold('public key')}  ${r.publicKey}`,
      `private key ${r.file}${r.identity ? ` (${r.identity})` : ''}`,
    ].join('\n'),
  keyPublic: (r: KeyPublicResult) => r.publicKey,
  keyList: (r: KeyListResult, s: Style) =>
    r.keys.length === 0
      ? s.dim(`no keys in ${r.home}/keys; make one with \`cards keygen --identity ID\``)
      : r.keys.map((k) => `${k.identity}\t${s.dim(k.file)}`).join('\n'),
  jwt: (r: JwtResult) => r.token,
  build: (r: BuildResult, s: Style) =>
    r.file
      ? [`${s.bold('card')} ${s.id(r.id)} written to ${r.file}`, ...cardLines(r.snapshot, s)].join(
          '\n',
        )
      : JSON.stringify(r.card, null, 2),
  publish: (r: PublishResult, s: Style) =>
    [
      `${s.ok('created')} ${s.id(r.id)}`,
      ...cardLines(r.snapshot, s),
      ...(r.keyCreated ? [s.dim(`  new key saved to ${r.keyCreated}`)] : []),
    ].join('\n'),
  get: (r: GetResult, s: Style) => {
    const by =
      r.state === 'superseded' && r.supersededBy
        ? s.dim(` by ${r.supersededBy}`)
        : r.state === 'revoked'
          ? s.dim(
              r.revokedBy
                ? ` by ${r.revokedBy}`
                : ` (${r.unknown ?? 'the revoking card is not known'})`,
            )
          : '';
    return [
      `${s.bold('card')} ${s.id(r.id)}  ${stateColour(r.state, s)}${by}`,
      ...(r.state === 'revoked' && r.supersededBy
        ? [`  superseded by ${s.id(r.supersededBy)} (before the chain was revoked)`]
        : []),
      ...cardLines(r.snapshot, s),
      ...(r.saved ? [s.dim(`  saved ${r.saved.card} and its log proof ${r.saved.proof}`)] : []),
    ].join('\n');
  },
  search: (r: SearchResult, s: Style) => {
    const out: string[] = [];
    for (const { identity, chains } of r.results) {
      out.push(s.bold(identity) + (chains.length === 0 ? s.dim('  no cards') : ''));
      // Each chain under its own rule, its older cards marked under the live head (issue 12.10).
      chains.forEach((chain, i) => {
        out.push(s.dim(`  ── chain ${i + 1} of ${chains.length}, ${chain.length} card(s)`));
        for (const card of chain) {
          const mark = card.state === 'active' ? s.ok('●') : s.dim('└');
          const state = stateColour(card.state, s) + ' '.repeat(10 - card.state.length);
          out.push(
            `  ${mark} ${s.id(card.id)}  ${state}  ${when(card.createdAt)}  ${s.dim(`key ${keyTail(card.publicKey)}`)}`,
          );
        }
      });
    }
    out.push(s.dim(`${r.active} active, ${r.total} in all`));
    return out.join('\n');
  },
  revoke: (r: RevokeResult, s: Style) =>
    `${s.bad('revoked')} ${s.id(r.revoked)} (${r.identity})${r.revocation ? s.dim(` by revoking card ${r.revocation.id}`) : ''}`,
  rotate: (r: RotateResult, s: Style) =>
    [
      `${s.ok('rotated')} ${s.bold(r.identity)}: ${s.id(r.id)} replaces ${s.id(r.replaced)}`,
      ...cardLines(r.snapshot, s),
      `  new key in   ${r.keyFile}`,
      r.backup
        ? `  old key kept ${r.backup} ${s.dim('(until --prune)')}`
        : s.dim('  no old key in the keystore'),
      ...r.pruned.map((file) => s.dim(`  pruned       ${file}`)),
    ].join('\n'),
  unregister: (r: UnregisterResult, s: Style) =>
    [
      `${s.bold(r.identity)}: ${r.revoked.length} card(s) revoked`,
      ...r.revoked.map((id) => `  ${s.bad('revoked')} ${s.id(id)}`),
      r.keyRemoved ? `  private key removed: ${r.keyRemoved}` : s.dim('  no private key removed'),
    ].join('\n'),
  inspect: (r: InspectResult, s: Style) => {
    // One label column for every section, as wide as the widest label (issue 12.10).
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
    if (r.snapshot) {
      for (const [k, v] of Object.entries(r.snapshot))
        out.push(
          row(
            k,
            k === 'created_at' && typeof v === 'number' ? `${v} (${when(v)})` : JSON.stringify(v),
          ),
        );
    }
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
        r.service.checked
          ? s.dim(`"${r.service.signer}" checked with ${r.service.keyFrom ?? 'the given key'}`)
          : s.warn(`"${r.service.signer}" signature NOT checked: ${r.service.hint ?? ''}`),
      ),
    );
    if (r.violations.length) {
      out.push(s.bold('violations'));
      for (const v of r.violations)
        out.push(row(v.field, `${s.bad(v.code)} (${v.wire}) ${v.message}`));
    }
    return out.join('\n');
  },
  seed: (r: SeedResult, s: Style) =>
    [
      `${s.ok('seeded')} ${r.created} card(s), ${r.revoked} revoked, ${Object.keys(r.identities).length} identities in ${(r.elapsedMs / 1000).toFixed(2)} s`,
      ...Object.entries(r.cards)
        .slice(0, 20)
        .map(([name, c]) => `  ${name.padEnd(20)} ${s.id(c.id)}  ${stateColour(c.state, s)}`),
      ...(Object.keys(r.cards).length > 20
        ? [s.dim(`  … and ${Object.keys(r.cards).length - 20} more (--json lists every id)`)]
        : []),
    ].join('\n'),
  init: (r: InitResult, s: Style) =>
    [
      `${r.replaced ? 'replaced' : s.ok('wrote')} profile "${r.profile}"${r.isDefault ? ' (default)' : ''} in ${r.path}`,
      ...Object.entries(r.settings).map(([k, v]) => `  ${k.padEnd(11)} ${String(v)}`),
    ].join('\n'),
  config: (r: ConfigResult, s: Style) =>
    [
      `config file  ${r.path}${r.profiles.length ? '' : s.dim(' (none yet: `cards init` writes one)')}`,
      `profiles     ${r.profiles.length ? r.profiles.map((p) => (p === r.activeProfile ? s.bold(`${p}*`) : p)).join(', ') : s.dim('(none)')}`,
      `keystore     ${r.home}/keys`,
      ...Object.entries(r.settings).map(
        ([k, v]) =>
          `  ${k.padEnd(12)} ${v ? `${v.value} ${s.dim(`(${v.source})`)}` : s.dim('(not set)')}`,
      ),
      'serve',
      ...Object.entries(r.serve).map(
        ([k, v]) =>
          `  ${k.padEnd(15)} ${v ? `${Array.isArray(v.value) ? v.value.join(', ') : String(v.value)} ${s.dim(`(${v.source})`)}` : s.dim('(not set)')}`,
      ),
    ].join('\n'),
  list: (r: ListResult, s: Style) =>
    [
      ...r.cards.map(
        (c) => `${String(c.seq).padStart(6)}  ${c.id}  ${c.state.padEnd(10)}  ${c.identity}`,
      ),
      r.cards.length === 0 ? s.dim('(no cards)') : '',
      r.next_cursor === null ? '' : s.dim(`more: --cursor ${r.next_cursor} (or --all)`),
    ]
      .filter((line) => line !== '')
      .join('\n'),
  history: (r: HistoryResult, s: Style) =>
    [
      `${s.bold(r.identity)}: ${r.chains.length} chain${r.chains.length === 1 ? '' : 's'}`,
      ...r.chains.flatMap((chain, i) => [
        `  chain ${i + 1}${chain.revoked ? ' (revoked)' : ''}`,
        ...chain.cards.map(
          (c) =>
            `    ${c.id}  ${c.state.padEnd(10)}  ${c.created_at === null ? '?' : when(c.created_at)}`,
        ),
      ]),
    ].join('\n'),
  requests: (r: RequestsResult, s: Style) =>
    r.requests.length === 0
      ? s.dim('(no requests yet)')
      : r.requests
          .map(
            (q) =>
              `${q.time}  ${q.method.padEnd(4)} ${q.path}  ${q.status}${q.code ? ` ${q.code}` : ''}  ${q.identity || '-'}  ${q.ms}ms`,
          )
          .join('\n'),
  reset: (r: { cards: number; url: string }, s: Style) =>
    `${s.ok('reset')}: ${r.url} now holds ${r.cards} cards`,
  export: (r: { cards: number; out: string }) =>
    r.out === '-' ? '' : `exported ${r.cards} cards to ${r.out}`,
  import: (r: { imported: number; skipped?: number; cards: number }, s: Style) =>
    `${s.ok('imported')} ${r.imported} cards${r.skipped ? `, skipped ${r.skipped} stored already` : ''} (the registry holds ${r.cards})`,
  configChange: (r: ConfigChange, s: Style) =>
    [
      `${s.ok('profile')} "${r.profile}"${r.isDefault ? ' (default)' : ''} in ${r.path}`,
      ...Object.entries(r.settings).map(([k, v]) => `  ${k.padEnd(11)} ${String(v)}`),
    ].join('\n'),
  ...LOG_TEXT,
} as const;

export type ViewName = keyof typeof TEXT;
