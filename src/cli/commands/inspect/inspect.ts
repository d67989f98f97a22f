/**
 * `cards inspect [FILE|-|CARD_ID]`: decodes and verifies a card offline: the snapshot's fields,
 * the id recomputed, a verdict per signature (self with the card's key, the service's with
 * --service-key or the key beside a local store, service-key.ts; others with --trust NAME=KEY)
 * and every limit violation. Without a service key it says that the service signature was not
 * checked, and how to give the key. A CARD_ID is fetched from the service first; everything
 * after that is local. Fails (exit 5) when anything fails.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { cardIdOf } from '../../../core/card-id.js';
import { reportSignatures, type CardSignature } from '../../../core/card.js';
import { CardsError, type ErrorCode } from '../../../core/errors.js';
import { isCardId, SELF_SIGNER } from '../../../core/limits.js';
import { parseSnapshot, reportSnapshot } from '../../../core/snapshot.js';
import type { PublicKey } from '../../../crypto/keys.js';
import { verifyCardSignatures, type SignatureVerdict } from '../../../crypto/verify-card.js';
import { unwrapCard } from '../../card-builder.js';
import { connect } from '../../connection.js';
import type { CommandContext } from '../../context.js';
import { parseJson, readInput, readPublicKey, splitPair } from '../../inputs.js';
import { findServiceKey, SERVICE_KEY_HINT } from '../../service-key.js';
import { resolveSettings, type ConnectionFlags } from '../../settings.js';

/** One limit or format violation, with the code the service would refuse it with. */
export interface Violation {
  field: string;
  code: ErrorCode;
  wire: number;
  message: string;
}

const toViolation = ({ field, error }: { field: string; error: CardsError }): Violation => ({
  field,
  code: error.code,
  wire: error.number,
  message: error.message,
});

export interface InspectOptions extends ConnectionFlags {
  input?: string;
  trust?: string[];
}

/** A verdict, or "not applicable" for the self signature of a revoking card (spec 4.4). */
export type InspectedSignature = Omit<SignatureVerdict, 'status'> & {
  status: SignatureVerdict['status'] | 'not applicable';
  extraSnapshot: string | null;
};

export interface InspectResult {
  ok: boolean;
  source: string;
  id: string | null;
  expectedId: string | null;
  snapshot: Record<string, unknown> | null;
  extras: Record<string, string>;
  signatures: InspectedSignature[];
  violations: Violation[];
  /** The service signature's check: the key's origin, or why it was not checked and how to. */
  service: { signer: string; checked: boolean; keyFrom: string | null; hint: string | null };
}

async function loadCard(
  ctx: CommandContext,
  options: InspectOptions,
): Promise<{ json: unknown; source: string; expectedId: string | null }> {
  const input = options.input ?? '-';
  if (input === '-' && ctx.stdin.isTTY)
    throw new CardsError('USAGE', 'inspect needs FILE, CARD_ID or a card on stdin.', {
      hint: 'for example `cards inspect card.json` or `cards build … | cards inspect -`',
    });
  if (isCardId(input) && !existsSync(resolve(ctx.cwd, input))) {
    const client = connect(ctx, resolveSettings(ctx, options));
    const { card } = await client.getCard(input.toLowerCase());
    return {
      json: card,
      source: client.url,
      expectedId: input.toLowerCase(),
    };
  }
  const text = (await readInput(ctx, input, 'Card file')).toString('utf8');
  const json = parseJson(text, input === '-' ? 'stdin' : input);
  const claimed = (json as { id?: unknown } | null)?.id;
  return {
    json,
    source: input === '-' ? 'stdin' : input,
    expectedId: isCardId(claimed) ? claimed.toLowerCase() : null,
  };
}

export async function inspect(
  ctx: CommandContext,
  options: InspectOptions,
): Promise<InspectResult> {
  const settings = resolveSettings(ctx, options);
  const trusted = new Map<string, PublicKey>();
  const serviceKey = findServiceKey(ctx, settings);
  const signer = settings.wire.signer;
  if (serviceKey) trusted.set(signer, serviceKey.key);
  for (const pair of options.trust ?? []) {
    const [name, key] = splitPair(pair, '--trust');
    trusted.set(name, readPublicKey(ctx, key));
  }
  const { json, source, expectedId } = await loadCard(ctx, options);
  const card = unwrapCard(json) as { content_snapshot?: unknown; signatures?: unknown } | null;
  if (!card || typeof card !== 'object')
    throw new CardsError(
      'USAGE',
      `${source} holds no card: expected {"content_snapshot", "signatures"}.`,
    );

  const snap = reportSnapshot(
    typeof card.content_snapshot === 'string' ? card.content_snapshot : '',
  );
  const revoking = snap.fields !== undefined && (snap.fields.public_key ?? '') === '';
  // A stored card carries the service's signature: no signer name is reserved here.
  const sigs = reportSignatures(card.signatures, { reservedSigner: '', requireSelf: !revoking });
  const violations = [...snap.problems, ...sigs.problems].map(toViolation);
  const id = snap.bytes ? cardIdOf(snap.bytes) : null;

  const decoded = sigs.entries.filter((e): e is CardSignature => 'signature' in e);
  let verdicts: Omit<InspectedSignature, 'extraSnapshot'>[] = [];
  if (snap.bytes && snap.problems.length === 0) {
    verdicts = await verifyCardSignatures(parseSnapshot(snap.bytes, 'any'), decoded, { trusted });
  }
  // A revoking card has no key: its self signature is optional and not verified (spec 4.4).
  if (revoking)
    verdicts = verdicts.map((v) =>
      v.signer === SELF_SIGNER
        ? {
            signer: v.signer,
            status: 'not applicable' as const,
            reason: 'a revoking card has no key to check it against (spec 4.4: not verified)',
          }
        : v,
    );
  const byEntry = new Map(decoded.map((entry, i) => [entry, verdicts[i]]));
  const signerOf = (index: number): string => {
    const raw = (card.signatures as { signer?: unknown }[] | undefined)?.[index]?.signer;
    return typeof raw === 'string' ? raw : '';
  };
  const signatures = sigs.entries.map((entry, index): InspectedSignature => {
    const verdict: Omit<InspectedSignature, 'extraSnapshot'> =
      'error' in entry
        ? { signer: signerOf(index), status: 'invalid', reason: entry.error.message }
        : (byEntry.get(entry) ?? {
            signer: entry.signer,
            status: 'unchecked',
            reason: 'the snapshot could not be read',
          });
    const extra =
      'snapshot' in entry && entry.snapshot.byteLength
        ? Buffer.from(entry.snapshot).toString('utf8')
        : null;
    return { ...verdict, extraSnapshot: extra };
  });
  for (const name of trusted.keys()) {
    // A key found beside a local store was not asked for: an unpublished card needs none.
    if (name === signer && serviceKey?.explicit === false) continue;
    if (!signatures.some((s) => s.signer === name))
      signatures.push({
        signer: name,
        status: 'invalid',
        reason: 'a key was given for this signer, but the card has no signature by it',
        extraSnapshot: null,
      });
  }
  const extras = Object.fromEntries(
    signatures
      .filter((s) => s.extraSnapshot !== null)
      .map((s) => [s.signer, s.extraSnapshot as string]),
  );
  const ok =
    violations.length === 0 &&
    signatures.every((s) => s.status !== 'invalid') &&
    (expectedId === null || expectedId === id);
  return {
    ok,
    source,
    id,
    expectedId,
    snapshot: snap.fields ?? null,
    extras,
    signatures,
    violations,
    service: serviceCheck(signer, serviceKey?.from, signatures),
  };
}

function serviceCheck(
  signer: string,
  keyFrom: string | undefined,
  signatures: readonly InspectedSignature[],
): InspectResult['service'] {
  const signature = signatures.find((s) => s.signer === signer);
  if (!signature)
    return {
      signer,
      checked: false,
      keyFrom: keyFrom ?? null,
      hint: 'the card has no service signature (it was not published)',
    };
  if (keyFrom === undefined)
    return { signer, checked: false, keyFrom: null, hint: `no service key: ${SERVICE_KEY_HINT}` };
  // Cards keep the signature of the registry that stored them: one moved by export and import
  // into a server with a key of its own fails here, card after card (docs/serve.md, "Moving a
  // registry and its service key").
  const hint =
    signature.status === 'invalid'
      ? `the service signature does not verify with ${keyFrom}: a card moved from another registry keeps that registry's signature; give its key (--service-key KEY), or start this server with it (cards serve --service-key FILE)`
      : null;
  return { signer, checked: signature.status !== 'unchecked', keyFrom, hint };
}
