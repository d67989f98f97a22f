/**
 * `cards witness serve`: a C2SP tlog-witness v1.0.0 witness for the logs whose verifier keys
 * are given with --log (the key name is the log's origin). Its key and state live in --dir.
 * Only wiring: the rules are in src/log/witness.ts, the server in src/witness/.
 */
import { outliveOutput } from '../../io/standard-streams.js';
import { CardsError } from '../../core/errors.js';
import { ed25519Verifier, isValidKeyName, type NoteVerifier } from '../../log/note-keys.js';
import { createWitnessServer } from '../../witness/server.js';
import { openWitnessFolder } from '../../witness/state.js';

export interface WitnessServeOptions {
  readonly dir: string;
  readonly name: string;
  readonly log: readonly string[];
  readonly host: string;
  readonly port: number;
}

export function parseWitnessServeOptions(raw: Record<string, unknown>): WitnessServeOptions {
  const port = Number(raw.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new CardsError(
      'USAGE',
      `--port must be an integer from 0 to 65535, got "${String(raw.port)}".`,
    );
  }
  const name = String(raw.name ?? '');
  if (!isValidKeyName(name))
    throw new CardsError('USAGE', `--name "${name}": no spaces or "+", not empty.`);
  const log = ([] as string[]).concat((raw.log as string[] | undefined) ?? []);
  if (log.length === 0) {
    throw new CardsError(
      'USAGE',
      'give at least one --log VKEY (the log verifier key, name+id+key).',
    );
  }
  return { dir: String(raw.dir), name, log, host: String(raw.host), port };
}

export async function witnessServe(raw: Record<string, unknown>): Promise<void> {
  const options = parseWitnessServeOptions(raw);
  outliveOutput();
  const logs = new Map<string, NoteVerifier[]>();
  for (const vkey of options.log) {
    const verifier = ed25519Verifier(vkey);
    logs.set(verifier.name, [...(logs.get(verifier.name) ?? []), verifier]);
  }
  const folder = await openWitnessFolder(options.dir, options.name);
  const witness = createWitnessServer({ folder, logs });
  const url = await witness.listen(options.port, options.host);
  const out = (line: string): boolean => process.stdout.write(`${line}\n`);
  out(`listening on ${url}`);
  out(`witness key: ${witness.vkey}`);
  out(`state: ${options.dir} (${folder.state.logs.size} logs seen)`);
  out(`logs: ${[...logs.keys()].join(', ')}`);
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  process.stderr.write(`${signal}: stopping\n`);
  await witness.close();
}
