/**
 * `cards get ID`: the card, its state and its decoded snapshot (spec 4.2, section 3), with the
 * chain relation as far as it can be known (chain-relations.ts: the core chain rules over the
 * cards search lists and the chains this CLI revoked itself). A revoked chain is not listed by
 * search, so the card that revoked it is named only when it can be seen; otherwise `revokedBy`
 * is null and `unknown` says why.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RawCard } from '../../../core/card.js';
import type { CardState } from '../../../core/chain.js';
import { viewCard, type CardView } from '../../card-builder.js';
import { fetchCard, requireCardId } from '../../card-fetch.js';
import { publicChainSource, relationOf } from '../../chain-relations.js';
import { connect } from '../../connection.js';
import type { CommandContext } from '../../context.js';
import { RemoteLog } from '../../log-remote.js';
import { resolveSettings, type ConnectionFlags } from '../../settings.js';

export interface GetOptions extends ConnectionFlags {
  id: string;
  /** Save the card (`<id>.json`) and its log proof (`<id>.proof`) in the working folder. */
  proof?: boolean;
}

export interface GetResult {
  id: string;
  state: CardState;
  /** The card that replaced this one (also when its chain was revoked later), when known. */
  supersededBy: string | null;
  /** The revoking card that ended this card's chain, when it can be seen. */
  revokedBy: string | null;
  /** Why a relation is not known (a revoked chain whose revoking card is not listed). */
  unknown: string | null;
  card: RawCard;
  snapshot: CardView;
  /** With --proof: the files written. */
  saved?: { card: string; proof: string };
}

export async function get(ctx: CommandContext, options: GetOptions): Promise<GetResult> {
  const id = requireCardId(options.id);
  const settings = resolveSettings(ctx, options);
  const client = connect(ctx, settings);
  const { card, superseded } = await fetchCard(client, id);
  const relation = await relationOf(publicChainSource(client, ctx.home), card, superseded);
  const result: GetResult = { id, ...relation, card, snapshot: viewCard(card) };
  if (options.proof) {
    // The proof is public data (GET /log/proof/ID): saved beside the card for offline checks.
    const proof = await new RemoteLog(client.url, settings.timeout.value).proof(id);
    const cardFile = join(ctx.cwd, `${id}.json`);
    const proofFile = join(ctx.cwd, `${id}.proof`);
    writeFileSync(
      cardFile,
      `${JSON.stringify(card, null, 2)}
`,
    );
    writeFileSync(proofFile, proof);
    result.saved = { card: cardFile, proof: proofFile };
  }
  return result;
}
