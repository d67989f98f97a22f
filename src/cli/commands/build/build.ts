/**
 * `cards build`: builds and signs a card offline (spec 2.2, 2.3) and returns its wire JSON.
 * No network. The owner's key comes from --key FILE or the keystore (card-prepare.ts, shared with
 * `create`).
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { RawCard } from '../../../core/card.js';
import { viewCard, type CardView } from '../../card-builder.js';
import { prepareCard, type BuildOptions } from '../../card-prepare.js';
import type { CommandContext } from '../../context.js';

export type { BuildOptions } from '../../card-prepare.js';

export interface BuildResult {
  id: string;
  card: RawCard;
  snapshot: CardView;
  keyCreated: string | null;
  file: string | null;
}

export async function build(ctx: CommandContext, options: BuildOptions): Promise<BuildResult> {
  const { built, keyCreated } = await prepareCard(ctx, options);
  let file: string | null = null;
  if (options.out !== undefined) {
    file = resolve(ctx.cwd, options.out);
    writeFileSync(file, `${JSON.stringify(built.card, null, 2)}\n`);
  }
  // stdout holds the card alone (for `| cards publish -`): where the new key went is said apart.
  if (keyCreated !== null) ctx.stderr.write(`new key saved to ${keyCreated}\n`);
  return { id: built.id, card: built.card, snapshot: viewCard(built.card), keyCreated, file };
}
