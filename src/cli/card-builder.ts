/**
 * Builds and signs cards for `build`, `create`, `revoke --with-card` and `seed`: the snapshot
 * (spec 2.2), the owner's `self` signature and any other signers' (spec 2.3), each with an
 * optional extra snapshot. Checks locally what the service would refuse, so that a bad card
 * fails before it travels. Also decodes cards for display.
 */
import type { RawCard } from '../core/card.js';
import { cardIdOf } from '../core/card-id.js';
import { decodeBase64, encodeBase64, utf8 } from '../core/encoding.js';
import { CardsError } from '../core/errors.js';
import { isObject } from '../core/json.js';
import { LIMITS, SELF_SIGNER } from '../core/limits.js';
import { buildSnapshot, decodeSnapshot, type Snapshot } from '../core/snapshot.js';
import type { CardPrivateKey } from '../crypto/signing-key.js';
import { signEntry, type SignerInput } from '../crypto/sign-card.js';
import type { CommandContext } from './context.js';
import { readCardKeyFile, readFileBytes, splitPair } from './inputs.js';

interface BuildCardInput {
  readonly identity: string;
  /** The owner's key; absent for an unsigned revoking card. */
  readonly key?: CardPrivateKey;
  /** Omit for a revoking card (empty public key). */
  readonly publicKey?: Uint8Array;
  readonly previousCardId?: string;
  readonly createdAt: number;
  readonly selfExtra?: Uint8Array;
  readonly others?: readonly SignerInput[];
  /** The service's own signer name, which a client may not use (40007). */
  readonly reservedSigner: string;
}

export interface BuiltCard {
  readonly id: string;
  readonly card: RawCard;
  readonly snapshot: Snapshot;
}

export function buildCard(input: BuildCardInput): BuiltCard {
  const snapshot = buildSnapshot({
    identity: input.identity,
    createdAt: input.createdAt,
    ...(input.publicKey ? { publicKey: input.publicKey } : {}),
    ...(input.previousCardId ? { previousCardId: input.previousCardId } : {}),
  });
  const others = input.others ?? [];
  const names = new Set<string>();
  for (const other of others) {
    if (
      other.signer === SELF_SIGNER ||
      other.signer === input.reservedSigner ||
      names.has(other.signer)
    )
      throw new CardsError(
        'SIGNER_INVALID',
        `Signer "${other.signer}" cannot be used: it is "self", the service's own or given twice.`,
      );
    names.add(other.signer);
  }
  if (others.length + (input.key ? 1 : 0) > LIMITS.signaturesMax)
    throw new CardsError('SIGNATURES_TOO_MANY');
  for (const extra of [input.selfExtra, ...others.map((o) => o.snapshot)]) {
    if (extra && extra.byteLength > LIMITS.extraSnapshotMax)
      throw new CardsError('EXTRA_SNAPSHOT_TOO_LONG');
  }
  const signatures = [];
  if (input.key)
    signatures.push(
      signEntry(snapshot, {
        signer: SELF_SIGNER,
        key: input.key,
        ...(input.selfExtra ? { snapshot: input.selfExtra } : {}),
      }),
    );
  for (const other of others) signatures.push(signEntry(snapshot, other));
  return {
    id: cardIdOf(snapshot.bytes),
    card: { content_snapshot: encodeBase64(snapshot.bytes), signatures },
    snapshot,
  };
}

/**
 * --signer NAME=KEYFILE and --extra [NAME=]JSON|@FILE into signer inputs and the self extra.
 * An extra without a NAME belongs to the owner's own signature.
 */
export function parseSigners(
  ctx: CommandContext,
  signerFlags: readonly string[],
  extraFlags: readonly string[],
): { others: SignerInput[]; selfExtra?: Uint8Array } {
  const keys = new Map<string, CardPrivateKey>();
  for (const flag of signerFlags) {
    const [name, file] = splitPair(flag, '--signer');
    if (keys.has(name)) throw new CardsError('USAGE', `--signer ${name} is given twice.`);
    keys.set(name, readCardKeyFile(ctx, file));
  }
  const extras = new Map<string, Uint8Array>();
  // NAME=VALUE where NAME is no --signer: a field of the owner's extra snapshot, as the stock
  // clients' extra fields are (a map of strings).
  const fields = new Map<string, string>();
  for (const flag of extraFlags) {
    const named = /^([^={["@\s][^=]*)=(.*)$/s.exec(flag);
    const name = named?.[1] ?? SELF_SIGNER;
    const value = named?.[2] ?? flag;
    if (name !== SELF_SIGNER && !keys.has(name)) {
      if (/^\s*[{[]/.test(value))
        throw new CardsError('USAGE', `--extra ${name}=… names no --signer ${name}=KEYFILE.`, {
          hint: `a field of the owner's extras is --extra ${name}=TEXT; JSON for another signer needs --signer ${name}=KEYFILE`,
        });
      if (fields.has(name)) throw new CardsError('USAGE', `--extra ${name}=… is given twice.`);
      fields.set(name, value);
      continue;
    }
    if (extras.has(name)) throw new CardsError('USAGE', `--extra for "${name}" is given twice.`);
    extras.set(name, readExtra(ctx, value));
  }
  if (fields.size > 0) {
    if (extras.has(SELF_SIGNER))
      throw new CardsError(
        'USAGE',
        "The owner's extras are given twice: as JSON (or @FILE) and as NAME=VALUE fields.",
        { hint: 'use one form: --extra \'{"a":"1"}\' or --extra a=1 --extra b=2' },
      );
    extras.set(SELF_SIGNER, utf8(JSON.stringify(Object.fromEntries(fields))));
  }
  const others = [...keys].map(([signer, key]) => {
    const snapshot = extras.get(signer);
    return snapshot ? { signer, key, snapshot } : { signer, key };
  });
  const selfExtra = extras.get(SELF_SIGNER);
  return selfExtra ? { others, selfExtra } : { others };
}

/** JSON text (checked, kept byte for byte) or @FILE (raw bytes). */
function readExtra(ctx: CommandContext, value: string): Uint8Array {
  if (value.startsWith('@'))
    return new Uint8Array(readFileBytes(ctx, value.slice(1), 'Extra snapshot file'));
  try {
    JSON.parse(value);
  } catch {
    throw new CardsError('USAGE', `--extra expects JSON or @FILE, got "${value.slice(0, 40)}".`);
  }
  return utf8(value);
}

/** The fields of a stored card for display; `publicKey` is base64 DER SPKI or ''. */
export interface CardView {
  readonly id: string;
  readonly identity: string;
  readonly publicKey: string;
  readonly previousCardId: string | null;
  readonly createdAt: number;
  readonly version: string;
  readonly signers: string[];
  readonly extras: Record<string, string>;
}

export function viewCard(card: RawCard): CardView {
  const snapshot = decodeSnapshot(card.content_snapshot, 'any');
  const extras: Record<string, string> = {};
  for (const entry of card.signatures ?? []) {
    if (!entry.snapshot) continue;
    const bytes = decodeBase64(entry.snapshot);
    if (bytes) extras[entry.signer] = Buffer.from(bytes).toString('utf8');
  }
  return {
    id: cardIdOf(snapshot.bytes),
    identity: snapshot.identity,
    publicKey: snapshot.publicKey.byteLength ? encodeBase64(snapshot.publicKey) : '',
    previousCardId: snapshot.previousCardId ?? null,
    createdAt: snapshot.createdAt,
    version: snapshot.version,
    signers: (card.signatures ?? []).map((s) => s.signer),
    extras,
  };
}

/**
 * The card inside a JSON document: a wire card is itself; any `cards … --json` output (build,
 * create, get, …) holds one under `card`. Anything else is returned as it is, for the caller
 * to refuse or report.
 */
export function unwrapCard(json: unknown): unknown {
  return isObject(json) && json.content_snapshot === undefined && json.card ? json.card : json;
}

/** A card JSON from a file: a wire card, or any `cards … --json` output holding `card`. */
export function cardFromJson(json: unknown, where: string): RawCard {
  const card = unwrapCard(json) as Partial<RawCard> | null;
  if (!card || typeof card !== 'object' || typeof card.content_snapshot !== 'string')
    throw new CardsError(
      'USAGE',
      `${where} holds no card: expected {"content_snapshot", "signatures"}.`,
    );
  return card as RawCard;
}
