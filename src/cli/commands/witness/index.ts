/** `cards witness serve`: a C2SP tlog-witness for the logs given. */
import { Option } from 'commander';
import { DEFAULT_HOST } from '../../../server/defaults.js';
import { declare } from '../../command.js';
import { integer } from '../../flags.js';
import type { WitnessServeOptions } from './witness.js';

export default [
  declare({ name: 'witness', summary: 'Transparency log witness (C2SP tlog-witness v1.0.0).' }),
  declare({
    name: 'witness serve',
    summary: 'Cosign checkpoints of the given logs after checking their consistency.',
    flags: [
      new Option(
        '--log <vkey...>',
        'trusted log verifier key (name+id+key; the name is its origin); repeatable',
      ).makeOptionMandatory(),
      new Option('--dir <dir>', 'folder of the witness key and state').default('./cards-witness'),
      new Option('--name <name>', 'witness key name, used on first start').default(
        'localhost/cards-witness',
      ),
      new Option('--host <host>', 'address to listen on').default(DEFAULT_HOST),
      new Option('--port <port>', 'port to listen on; 0 picks a free one')
        .default(7380)
        .argParser(integer(0, 65_535)),
      new Option(
        '--ready-file <file>',
        'once listening, write {url, vkey, pid, …} as JSON to FILE (atomically; removed at stop)',
      ),
    ],
    help: `Prints "listening on URL" and its witness key (with --json, one JSON line: url, vkey,
pid, state, logsSeen, logs; --ready-file writes the same document); SIGINT/SIGTERM stop it.`,
    examples: [
      'cards witness serve --log "$LOG_KEY"',
      'cards witness serve --log "$LOG_KEY" --port 0 --dir /var/lib/cards-witness',
      'cards witness serve --log "$LOG_KEY" --port 0 --ready-file /tmp/witness.ready',
    ],
    fileHint:
      'check --dir: the witness key and state go in that folder (made when missing), so it must be a folder, or a path where one can be made, that this user can write',
    run: async (ctx, options: WitnessServeOptions) =>
      (await import('./witness.js')).witnessServe(ctx, options),
  }),
];
