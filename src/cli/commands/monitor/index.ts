/** `cards monitor`: every card of an identity the log holds. */
import { Option } from 'commander';
import { EXIT } from '../../exit-status.js';
import { declare } from '../../command.js';
import { connectionFlags, integer, logKeyFlag } from '../../flags.js';
import type { Style } from '../../text.js';
import type { MonitorEvent, MonitorOptions, MonitorResult } from './monitor.js';

const unstyled = (t: string): string => t;

/** A card the log holds as one line: the result's view indents it, --follow prints it as read. */
const eventText = (
  e: MonitorEvent,
  s: Pick<Style, 'id' | 'bad'> = { id: unstyled, bad: unstyled },
) =>
  `#${e.index} ${e.kind.padEnd(11)} ${s.id(e.id)}${e.publicKey ? ` key ${e.publicKey}` : ''}${e.unexpected ? ` ${s.bad('UNEXPECTED KEY')}` : ''}`;

/** The entries read, as people count them: first to last, both included. */
const entriesRead = (from: number, to: number): string =>
  to > from
    ? to - from === 1
      ? `entry ${from}`
      : `entries ${from}–${to - 1}`
    : `no new entries (the log holds ${to})`;

export default declare({
  name: 'monitor',
  summary: 'Report every card of an identity the log holds (new keys, replacements, revocations).',
  flags: [
    connectionFlags(),
    new Option('--expect-key <key...>', 'the keys the identity published; any other exits 5'),
    new Option('--follow', 'keep watching (every --interval ms) until interrupted'),
    new Option('--interval <ms>', 'with --follow: time between checkpoint fetches')
      .default(1000)
      .argParser(integer(1, 86_400_000)),
    logKeyFlag("verify the log's checkpoints with this key"),
  ],
  help: `Reads the log's entries from where the last run stopped (state in $CARDS_HOME/monitor/),
checking them against the signed tree.`,
  examples: [
    'cards monitor --identity alice',
    'cards monitor --identity alice --expect-key "$ALICE_KEY" --log-key "$LOG_KEY" --follow',
  ],
  run: async (ctx, options: MonitorOptions) =>
    (await import('./monitor.js')).monitor(ctx, options, (e) => eventText(e)),
  verdict: (r: MonitorResult) =>
    r.unexpected === 0
      ? undefined
      : {
          exit: EXIT.verificationFailed,
          summary: `${r.unexpected} card(s) of ${r.identity} in the log carry a key not given with --expect-key (LOG_UNEXPECTED_KEY 91009).`,
        },
  text: (r: MonitorResult, s) =>
    [
      `${r.identity} in ${r.origin}: ${entriesRead(r.from, r.to)}, ${r.events.length} card(s)`,
      ...r.events.map((e) => `  ${eventText(e, s)}`),
    ].join('\n'),
});
