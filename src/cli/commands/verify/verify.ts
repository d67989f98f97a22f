/**
 * `cards verify CARD_ID|FILE --log-key VKEY [--witness VKEY…]`: is this card in the log the
 * trusted key signs, and is that log the one this client saw before? Checks, in order: the
 * card's id (SHA-512 of its snapshot, spec 2.4) is the one asked for; its tlog-proof (a file
 * beside the card, `--proof FILE`, or GET /log/proof/ID) verifies against a checkpoint signed by
 * the log key for its origin, cosigned by each --witness; and that checkpoint is consistent
 * with the last one accepted for the origin (log-trust.ts; a fork or a rewind exits 8).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { cardIdOf } from '../../../core/card-id.js';
import type { RawCard } from '../../../core/card.js';
import { decodeBase64 } from '../../../core/encoding.js';
import { CardsError } from '../../../core/errors.js';
import { cosignatureVerifier } from '../../../log/cosignature.js';
import { ed25519Verifier, type NoteVerifier } from '../../../log/note-keys.js';
import { cosignersOf, parseTlogProof, verifyTlogProof } from '../../../log/tlog-proof.js';
import { cardFromJson } from '../../card-builder.js';
import { fetchCard, requireCardId } from '../../card-fetch.js';
import { connect } from '../../connection.js';
import type { CommandContext } from '../../context.js';
import { parseJson, readFileBytes } from '../../inputs.js';
import { acceptCheckpoint } from '../../log-trust.js';
import { RemoteLog } from '../../log-remote.js';
import { resolveSettings, type ConnectionFlags } from '../../settings.js';

export interface VerifyOptions extends ConnectionFlags {
  input: string;
  logKey?: string;
  witness?: string[];
  proof?: string;
}

export interface VerifyResult {
  id: string;
  index: number;
  origin: string;
  treeSize: number;
  witnesses: string[];
  /** The size this client had accepted for the origin before (null: first contact). */
  previousSize: number | null;
  consistent: boolean;
}

/**
 * How long a proof read from the server is read again while it lacks a required witness's
 * cosignature: the log publishes a checkpoint at once and adds each cosignature when its witness
 * answers (a witness has 5 s to answer, and a failed request is sent again after 1 s).
 */
const COSIGNATURE_WAIT_MS = 10_000;

async function awaitCosignatures(
  proofText: string,
  witnesses: readonly NoteVerifier[],
  refetch: () => Promise<string>,
): Promise<string> {
  const deadline = Date.now() + COSIGNATURE_WAIT_MS;
  let text = proofText;
  const short = (): boolean =>
    cosignersOf(parseTlogProof(text).checkpoint, witnesses).length < witnesses.length;
  while (witnesses.length > 0 && short() && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    text = await refetch();
  }
  return text;
}

/**
 * A proof short of required cosignatures, said with the witnesses it lacks and what makes a
 * server ask them (C2SP tlog-witness: the log submits its checkpoints to each witness it is
 * given); any other failure as it is.
 */
function explainMissingCosigners(
  err: unknown,
  proofText: string,
  witnesses: readonly NoteVerifier[],
  fetched: boolean,
): unknown {
  if (!(err instanceof CardsError) || err.code !== 'LOG_SIGNATURE_INVALID') return err;
  let cosigners: string[];
  try {
    cosigners = cosignersOf(parseTlogProof(proofText).checkpoint, witnesses);
  } catch {
    return err;
  }
  const missing = witnesses.map((w) => w.name).filter((name) => !cosigners.includes(name));
  if (missing.length === 0) return err;
  const waited = fetched ? `, read from the server for ${COSIGNATURE_WAIT_MS / 1000} s` : '';
  return new CardsError(
    'LOG_SIGNATURE_INVALID',
    `${err.message}: the checkpoint is not cosigned by ${missing.join(', ')}${waited}.`,
    {
      hint: 'a server asks a witness to cosign when started with --witness URL --witness-key VKEY for it, and adds the cosignature once that witness (`cards witness serve --log LOG_KEY`) answers; the server warns on stderr about a witness that fails',
    },
  );
}

/** Where `cards get --proof` saves a card's proof: beside the card file. */
const proofPathFor = (cardFile: string): string => `${cardFile.replace(/\.json$/, '')}.proof`;

export async function verify(ctx: CommandContext, options: VerifyOptions): Promise<VerifyResult> {
  if (!options.logKey)
    throw new CardsError('USAGE', 'verify needs the log key `cards serve` prints.', {
      hint: 'give --log-key VKEY, set CARDS_LOG_KEY, or keep it in the profile: `cards config set logKey VKEY`',
    });
  const logKey = ed25519Verifier(options.logKey);
  const witnesses = (options.witness ?? []).map((w) => cosignatureVerifier(w));
  const settings = resolveSettings(ctx, options);
  const remote = new RemoteLog(settings.url.value, settings.timeout.value);
  const file = resolve(ctx.cwd, options.input);
  let card: RawCard;
  let id: string;
  let proofText: string;
  let fetched = false;
  const fetchProof = (): Promise<string> => {
    fetched = true;
    return remote.proof(id);
  };
  if (existsSync(file)) {
    card = cardFromJson(
      parseJson(readFileBytes(ctx, file, 'Card file').toString('utf8'), file),
      file,
    );
    id = cardIdOf(decodeBase64(card.content_snapshot) ?? new Uint8Array());
    const proofFile = options.proof ?? proofPathFor(file);
    proofText = existsSync(resolve(ctx.cwd, proofFile))
      ? readFileBytes(ctx, proofFile, 'Proof file').toString('utf8')
      : await fetchProof();
  } else {
    id = requireCardId(options.input);
    ({ card } = await fetchCard(connect(ctx, settings), id));
    proofText = options.proof
      ? readFileBytes(ctx, options.proof, 'Proof file').toString('utf8')
      : await fetchProof();
  }
  if (fetched) proofText = await awaitCosignatures(proofText, witnesses, () => remote.proof(id));
  const entry = decodeBase64(card.content_snapshot);
  if (!entry || cardIdOf(entry) !== id)
    throw new CardsError('VERIFICATION_FAILED', `The card's snapshot does not hash to ${id}.`);
  let verified: ReturnType<typeof verifyTlogProof>;
  try {
    verified = verifyTlogProof(proofText, entry, {
      origin: logKey.name,
      logKeys: [logKey],
      witnessKeys: witnesses,
      witnessQuorum: witnesses.length,
    });
  } catch (err) {
    throw explainMissingCosigners(err, proofText, witnesses, fetched);
  }
  const signed = proofText.slice(proofText.indexOf('\n\n') + 2);
  const accepted = await acceptCheckpoint(
    ctx,
    verified.checkpoint,
    signed,
    remote.tilesOf(verified.checkpoint.origin),
  );
  return {
    id,
    index: verified.index,
    origin: verified.checkpoint.origin,
    treeSize: verified.checkpoint.size,
    witnesses: [...verified.witnesses],
    previousSize: accepted.previous ?? null,
    consistent: true,
  };
}
