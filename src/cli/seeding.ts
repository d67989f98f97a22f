/**
 * Creating the cards of a seed file (format in docs/cli.md), for `cards seed FILE` against a
 * service and for `cards serve --seed FILE` through the server's own registry: keys made with
 * node:crypto, one token per identity reused, up to --concurrency requests in flight on
 * kept-alive connections, each card started as soon as what it needs exists. Stops starting
 * new work at the first failure and reports it.
 */
import type { CardsClient } from '../client/http-client.js';
import { generatePrivateKey, type PrivateKey } from '../crypto/keys.js';
import { CardsError, isCardsError } from '../core/errors.js';
import { encodeBase64, utf8 } from '../core/encoding.js';
import type { RawCard } from '../core/card.js';
import { buildCard } from './card-builder.js';
import { statesAfterRevokes, type CreatedCardState } from './chain-relations.js';
import type { CommandContext } from './context.js';
import { parseJson, readInput } from './inputs.js';
import { loadKey, storeKey } from './keystore.js';
import { createProgress } from './progress.js';
import { planSeed, substitute, type SeedCard } from './seed-plan.js';
import type { ConnectionFlags } from './settings.js';

export interface SeedOptions extends ConnectionFlags {
  file: string;
  /** Requests in flight (its flag declares the default). */
  concurrency: number;
  saveKeys?: boolean;
  force?: boolean;
  /** Empty the service first (admin API), then seed the whole file. */
  reset?: boolean;
}

export interface SeededCard {
  id: string;
  ref: string;
  identity: string;
  previousCardId: string | null;
  publicKey: string;
  /** From the core chain rules over the seeded cards and the revoking cards returned. */
  state: CreatedCardState['state'];
  /** The revoking card that ended the chain, when the service returned it. */
  revokedBy: string | null;
}

export interface SeedResult {
  url: string;
  created: number;
  /** Every card of the file was on the service already (seed-record.ts): nothing created. */
  alreadySeeded?: boolean;
  revoked: number;
  elapsedMs: number;
  cards: Record<string, SeededCard>;
  identities: Record<string, { identity: string; cards: string[]; keyFile: string | null }>;
  signers: Record<string, string>;
}

/** What seeding needs of a service: the HTTP client, or `cards serve --seed`'s own registry. */
export type SeedClient = Pick<CardsClient, 'url' | 'createCard' | 'revokeById' | 'revokeWithCard'>;

const SKIPPED = Symbol('skipped');

export function limiter(max: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let active = 0;
  const queue: (() => void)[] = [];
  return async (fn) => {
    // A freed slot passes straight to the next waiter, so nobody can slip in between.
    if (active >= max) await new Promise<void>((go) => queue.push(go));
    else active++;
    try {
      return await fn();
    } finally {
      const next = queue.shift();
      if (next) next();
      else active--;
    }
  };
}

const extraBytes = (value: unknown): Uint8Array | undefined =>
  value === undefined ? undefined : utf8(typeof value === 'string' ? value : JSON.stringify(value));

/** The cards of a seed file created through `client`; `signer` is the service's reserved one. */
export async function seedCards(
  ctx: CommandContext,
  options: Omit<SeedOptions, keyof ConnectionFlags> & {
    /** The file's text, when read already. */
    text?: string;
    /** Aborted: start no new card (Ctrl-C); what was created is reported as on a failure. */
    signal?: AbortSignal;
    /**
     * Aborted after `signal` (a second Ctrl-C, the client's connections closed): the requests in
     * flight are not waited for; their cards are reported as sent with no answer read.
     */
    abandon?: AbortSignal;
  },
  client: SeedClient,
  signer: string,
): Promise<SeedResult> {
  const started = ctx.now();
  const text = options.text ?? (await readInput(ctx, options.file, 'Seed file')).toString('utf8');
  const plan = planSeed(parseJson(text, `Seed file ${options.file}`));
  const createdAt = Math.floor(ctx.now() / 1000);

  // A key per owner (a card, or the card whose key it shares) and per other signer, made when
  // first asked for.
  const ownerKeys = new Map<string, PrivateKey>();
  const signerKeys = new Map<string, PrivateKey>();
  const keyIn = (keys: Map<string, PrivateKey>, name: string): PrivateKey => {
    let key = keys.get(name);
    if (!key) keys.set(name, (key = generatePrivateKey()));
    return key;
  };
  const keyOf = (card: SeedCard): PrivateKey => keyIn(ownerKeys, card.key ?? card.name);
  const results = new Map<string, SeededCard>();
  /** Revoked card id → the revoking card the service returned (null: its answer held none). */
  const revoking = new Map<string, RawCard | null>();
  const lookup = (name: string, field: string): string => {
    const card = results.get(plan.resolve(name) as string) as SeededCard;
    return field === 'id' ? card.id : field === 'identity' ? card.identity : card.publicKey;
  };

  const revocations = plan.cards.filter((c) => c.revoke).length;
  const progress = createProgress(ctx.stderr, plan.cards.length + revocations, 'requests');
  const limit = limiter(options.concurrency);
  let failure: { card: string; error: unknown } | undefined;
  /** What is sent and not yet answered, by card name: its id, and whether it is its revocation. */
  const sending = new Map<string, { id: string; revocation: boolean }>();

  async function make(card: SeedCard): Promise<void> {
    const key = keyOf(card);
    const previous =
      card.replaces === undefined
        ? undefined
        : (results.get(plan.resolve(card.replaces) as string)?.id ?? card.replaces.toLowerCase());
    const selfExtra = extraBytes(substitute(card.extra, lookup));
    const built = buildCard({
      identity: card.identity,
      key,
      publicKey: key.publicKey.spki,
      createdAt: card.createdAt ?? createdAt,
      reservedSigner: signer,
      ...(previous ? { previousCardId: previous } : {}),
      ...(selfExtra ? { selfExtra } : {}),
      others: card.signers.map((s) => {
        const snapshot = extraBytes(substitute(s.extra, lookup));
        return {
          signer: s.name,
          key: keyIn(signerKeys, s.name),
          ...(snapshot ? { snapshot } : {}),
        };
      }),
    });
    sending.set(card.name, { id: built.id, revocation: false });
    await client.createCard(built.card, card.identity);
    progress.tick();
    results.set(card.name, {
      id: built.id,
      ref: card.ref,
      identity: card.identity,
      previousCardId: previous ?? null,
      publicKey: encodeBase64(key.publicKey.spki),
      state: 'active',
      revokedBy: null,
    });
    if (card.revoke) sending.set(card.name, { id: built.id, revocation: true });
    if (card.revoke === 'by-id')
      revoking.set(built.id, await client.revokeById(built.id, card.identity));
    if (card.revoke === 'with-card') {
      const revocation = buildCard({
        identity: card.identity,
        key,
        previousCardId: built.id,
        createdAt: card.createdAt ?? createdAt,
        reservedSigner: signer,
      });
      revoking.set(built.id, await client.revokeWithCard(revocation.card, card.identity));
    }
    if (card.revoke) progress.tick();
    sending.delete(card.name);
  }

  const tasks = new Map<string, Promise<void>>();
  // Each card takes its turn after the one before it in the plan's (file) order took its own,
  // so with --concurrency 1 the service receives them in file order.
  let turn: Promise<void> = Promise.resolve();
  for (const card of plan.cards) {
    const needs = card.needs.map((n) => tasks.get(n) as Promise<void>);
    const previous = turn;
    let started!: () => void;
    turn = new Promise<void>((resolve) => (started = resolve));
    const task = (async () => {
      try {
        try {
          if (needs.length) await Promise.all(needs);
        } finally {
          await previous;
        }
        await limit(async () => {
          started();
          if (failure || options.signal?.aborted) throw SKIPPED;
          try {
            await make(card);
          } catch (error) {
            // Abandoned: its answer was not waited for, which is no failure of the card.
            if (options.abandon?.aborted) throw SKIPPED;
            failure ??= { card: card.name, error };
            throw error;
          }
        });
      } finally {
        // A card skipped for a failed need still passes the turn on.
        started();
      }
    })();
    task.catch(() => undefined);
    tasks.set(card.name, task);
  }
  await Promise.allSettled(tasks.values());
  progress.done();
  const summary = (): SeedResult => {
    // States from the one chain function (core/chain.ts), for what was created so far.
    const states = statesAfterRevokes([...results.values()], revoking);
    for (const seeded of results.values()) Object.assign(seeded, states.get(seeded.id));
    return summarise(ctx, options, plan, results, {
      url: client.url,
      revocations,
      elapsedMs: ctx.now() - started,
      keyOf,
      signerKeys,
    });
  };
  if (!failure && options.signal?.aborted) {
    const created = [...results].map(([name, card]) => `${name} ${card.id}`);
    const unanswered = [...sending].map(([name, { id, revocation }]) => ({
      name,
      id,
      revocation,
    }));
    const unread = unanswered.map(
      ({ name, id, revocation }) => `${name} ${id}${revocation ? ' (its revocation)' : ''}`,
    );
    throw new CardsError(
      'CANCELLED',
      `seed: interrupted (Ctrl-C) after ${results.size} of ${plan.cards.length} cards created${listed(created)}${unread.length ? `\nsent with no answer read (Ctrl-C again), each may be on the service${listed(unread)}` : ''}`,
      {
        hint: 'a rerun says the file is partly seeded; --reset starts over',
        partial: { ...summary(), ...(unanswered.length && { unanswered }) },
      },
    );
  }
  if (failure) {
    const { card, error } = failure;
    if (!isCardsError(error)) throw error;
    // What was created is on the service now: under --json the error's document says which
    // (ids and names), so a script can clean up or resume (report-error.ts).
    throw new CardsError(
      error.code,
      `seed: card "${card}" (after ${results.size} created): ${error.message}`,
      { hint: error.hint, cause: error, partial: { ...summary() } },
    );
  }
  return summary();
}

/** `:` and the lines, the first 50 of them, or `.` for none. */
const listed = (lines: readonly string[]): string =>
  lines.length
    ? `:\n  ${lines.slice(0, 50).join('\n  ')}${lines.length > 50 ? `\n  … and ${lines.length - 50} more (--json lists every id)` : ''}`
    : '.';

function summarise(
  ctx: CommandContext,
  options: Omit<SeedOptions, keyof ConnectionFlags>,
  plan: ReturnType<typeof planSeed>,
  results: Map<string, SeededCard>,
  extra: {
    url: string;
    revocations: number;
    elapsedMs: number;
    keyOf: (card: SeedCard) => PrivateKey;
    signerKeys: Map<string, PrivateKey>;
  },
): SeedResult {
  const byName = new Map(plan.cards.map((c) => [c.name, c]));
  const identities: SeedResult['identities'] = {};
  for (const [ref, entry] of plan.identities) {
    let keyFile: string | null = null;
    const newest = [...entry.cards].reverse().find((name) => results.get(name)?.state === 'active');
    if (options.saveKeys && newest && (options.force || !loadKey(ctx.home, entry.identity)))
      keyFile = storeKey(
        ctx.home,
        entry.identity,
        extra.keyOf(byName.get(newest) as SeedCard),
        true,
      );
    identities[ref] = { identity: entry.identity, cards: entry.cards, keyFile };
  }
  const cards: Record<string, SeededCard> = {};
  for (const entry of plan.identities.values())
    for (const name of entry.cards) cards[name] = results.get(name) as SeededCard;
  return {
    url: extra.url,
    created: results.size,
    revoked: extra.revocations,
    elapsedMs: extra.elapsedMs,
    cards,
    identities,
    signers: Object.fromEntries(
      [...extra.signerKeys].map(([name, key]) => [name, encodeBase64(key.publicKey.spki)]),
    ),
  };
}
