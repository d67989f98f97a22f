/**
 * The seed file of `cards seed` (format in docs/cli.md, example in fixtures/seed-example.json),
 * read into a plan: every card with its identity, what it replaces, what it references and
 * whether it is revoked, in an order where each card comes after everything it needs.
 * Pure apart from nothing: no keys, no network; mistakes are usage errors naming the entry.
 */
import { CardsError } from '../core/errors.js';
import { isObject } from '../core/json.js';
import { isCardId } from '../core/limits.js';
import { FileOrderQueue } from './file-order-queue.js';

export interface SeedCard {
  /** Global name: the entry's `name`, else `<ref>#<n>`. */
  readonly name: string;
  readonly ref: string;
  readonly identity: string;
  /** A card name, or a literal card id of an existing card. */
  readonly replaces?: string;
  readonly extra?: unknown;
  readonly signers: readonly { name: string; extra?: unknown }[];
  /** Name of the card whose key this card shares. */
  readonly key?: string;
  readonly revoke?: 'by-id' | 'with-card';
  readonly createdAt?: number;
  /** Names of cards that must exist first (replaces and ${name.field} references). */
  readonly needs: readonly string[];
}

interface SeedPlan {
  /** In dependency order. */
  readonly cards: readonly SeedCard[];
  /** Identity refs with their identity and card names, in file order. */
  readonly identities: ReadonlyMap<string, { identity: string; cards: string[] }>;
  /** A card name for a card name or an identity ref (its last card). */
  readonly resolve: (name: string) => string | undefined;
}

// NAME may hold dots (the default ref is the identity, often an e-mail address): the field is
// what follows the last dot.
const REF = /\$\{([^}]+)\.(id|identity|publicKey)\}/g;
const MAX_COUNT = 1_000_000;

const bad = (where: string, why: string): CardsError =>
  new CardsError('USAGE', `Seed file: ${where}: ${why}.`, {
    hint: 'the format is in docs/cli.md, "Seed files"',
  });

/** Every `${name.field}` in a JSON value's strings. */
function referencesIn(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') for (const m of value.matchAll(REF)) out.push(m[1] as string);
  else if (Array.isArray(value)) for (const v of value) referencesIn(v, out);
  else if (isObject(value)) for (const v of Object.values(value)) referencesIn(v, out);
  return out;
}

/** Replaces `${name.field}` in a JSON value's strings. */
export function substitute(
  value: unknown,
  lookup: (name: string, field: string) => string,
): unknown {
  if (typeof value === 'string')
    return value.replace(REF, (_, name: string, field: string) => lookup(name, field));
  if (Array.isArray(value)) return value.map((v) => substitute(v, lookup));
  if (isObject(value))
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, lookup)]));
  return value;
}

/** The fields of each level of a seed file; any other is refused (a typo would be ignored). */
const FIELDS = {
  'top level': ['version', 'identities'],
  identity: ['identity', 'ref', 'cards', 'count'],
  card: ['name', 'replaces', 'extra', 'signers', 'key', 'revoke', 'createdAt'],
  signer: ['name', 'extra'],
} as const;

/** Refuses a field `level` does not have, naming the one meant when it is a near miss. */
function refuseUnknownFields(
  value: Record<string, unknown>,
  level: keyof typeof FIELDS,
  where: string,
): void {
  const known: readonly string[] = FIELDS[level];
  for (const key of Object.keys(value)) {
    if (known.includes(key)) continue;
    const near = known.find((field) => closeTo(key, field));
    throw bad(
      where,
      `unknown field "${key}"${near ? ` (did you mean "${near}"?)` : ''}; a${level === 'identity' ? 'n' : ''} ${level === 'top level' ? 'seed file' : level} has ${known.map((f) => `"${f}"`).join(', ')}`,
    );
  }
}

/** One insertion, deletion or substitution apart, or the same ignoring case. */
function closeTo(a: string, b: string): boolean {
  if (a.toLowerCase() === b.toLowerCase()) return true;
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  const rest = (x: string, skip: number) => x.slice(i + skip);
  return rest(a, 1) === rest(b, 1) || rest(a, 0) === rest(b, 1) || rest(a, 1) === rest(b, 0);
}

function expand(entry: Record<string, unknown>, where: string): Record<string, unknown>[] {
  if (entry.count === undefined) return [entry];
  const count = entry.count;
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 1 || count > MAX_COUNT)
    throw bad(where, `"count" must be a whole number from 1 to ${MAX_COUNT}`);
  const rest: Record<string, unknown> = { ...entry };
  delete rest.count;
  const template = JSON.stringify(rest);
  if (!template.includes('${n}'))
    throw bad(where, '"count" needs ${n} in the identity, or every copy is the same');
  return Array.from(
    { length: count },
    (_, i) => JSON.parse(template.replaceAll('${n}', String(i + 1))) as Record<string, unknown>,
  );
}

export function planSeed(json: unknown): SeedPlan {
  if (!isObject(json) || json.version !== 1)
    throw bad('top level', 'expected an object with "version": 1');
  refuseUnknownFields(json, 'top level', 'top level');
  if (!Array.isArray(json.identities) || json.identities.length === 0)
    throw bad('top level', '"identities" must be a non-empty list');
  const cards = new Map<string, SeedCard>();
  const identities = new Map<string, { identity: string; cards: string[] }>();
  json.identities.forEach((raw, index) => {
    if (!isObject(raw)) throw bad(`identities[${index}]`, 'expected an object');
    refuseUnknownFields(raw, 'identity', `identities[${index}]`);
    for (const entry of expand(raw, `identities[${index}]`))
      readIdentity(entry, `identities[${index}]`, cards, identities);
  });
  const resolve = (name: string): string | undefined =>
    cards.has(name) ? name : identities.get(name)?.cards.at(-1);
  return { cards: order(cards, resolve), identities, resolve };
}

function readIdentity(
  entry: Record<string, unknown>,
  where: string,
  cards: Map<string, SeedCard>,
  identities: Map<string, { identity: string; cards: string[] }>,
): void {
  const identity = entry.identity;
  if (typeof identity !== 'string' || identity === '')
    throw bad(where, '"identity" must be a non-empty string');
  // A ref the user did not write (the identity) is never refused: any identity the service
  // accepts must seed; one holding "}" just cannot be named in ${…} references.
  const ref = entry.ref ?? identity;
  if (typeof ref !== 'string' || ref === '' || (entry.ref !== undefined && ref.includes('}')))
    throw bad(where, '"ref" must be a name without "}"');
  if (identities.has(ref)) throw bad(where, `ref "${ref}" is used twice`);
  const list = entry.cards ?? [{}];
  if (!Array.isArray(list) || list.length === 0)
    throw bad(where, '"cards" must be a non-empty list');
  const names: string[] = [];
  list.forEach((rawCard, i) => {
    const at = `${where} (${ref}) cards[${i}]`;
    if (!isObject(rawCard)) throw bad(at, 'expected an object');
    refuseUnknownFields(rawCard, 'card', at);
    const name = rawCard.name ?? `${ref}#${i + 1}`;
    if (
      typeof name !== 'string' ||
      name === '' ||
      (rawCard.name !== undefined && name.includes('}'))
    )
      throw bad(at, '"name" must be a name without "}"');
    if (cards.has(name)) throw bad(at, `card name "${name}" is used twice`);
    const replaces = rawCard.replaces;
    if (replaces !== undefined && (typeof replaces !== 'string' || replaces === ''))
      throw bad(at, '"replaces" must be a card name or id');
    const key = rawCard.key;
    if (key !== undefined && typeof key !== 'string')
      throw bad(at, '"key" must name another card of this file');
    const revoke = rawCard.revoke === true ? 'by-id' : rawCard.revoke;
    if (revoke !== undefined && revoke !== false && revoke !== 'by-id' && revoke !== 'with-card')
      throw bad(at, '"revoke" must be true, "by-id" or "with-card"');
    const createdAt = rawCard.createdAt;
    if (
      createdAt !== undefined &&
      (typeof createdAt !== 'number' || !Number.isSafeInteger(createdAt) || createdAt <= 0)
    )
      throw bad(at, '"createdAt" must be UNIX seconds');
    const signers = rawCard.signers ?? [];
    if (
      !Array.isArray(signers) ||
      !signers.every((s) => isObject(s) && typeof s.name === 'string' && s.name !== '')
    )
      throw bad(at, '"signers" must be a list of {"name", "extra"?}');
    signers.forEach((signer, k) =>
      refuseUnknownFields(signer as Record<string, unknown>, 'signer', `${at} signers[${k}]`),
    );
    const needs = referencesIn([rawCard.extra, signers]);
    if (typeof replaces === 'string' && !isCardId(replaces)) needs.push(replaces);
    cards.set(name, {
      name,
      ref,
      identity,
      signers: signers as { name: string; extra?: unknown }[],
      needs,
      ...(typeof replaces === 'string' ? { replaces } : {}),
      ...(rawCard.extra === undefined ? {} : { extra: rawCard.extra }),
      ...(typeof key === 'string' ? { key } : {}),
      ...(revoke === 'by-id' || revoke === 'with-card' ? { revoke } : {}),
      ...(typeof createdAt === 'number' ? { createdAt } : {}),
    });
    names.push(name);
  });
  identities.set(ref, { identity, cards: names });
}

/** Resolves identity refs to their newest card, checks the rules, and orders by dependency. */
function order(
  cards: Map<string, SeedCard>,
  resolveName: (name: string) => string | undefined,
): SeedCard[] {
  const replacedBy = new Map<string, string>();
  for (const card of cards.values()) {
    const at = `card "${card.name}"`;
    (card as { needs: readonly string[] }).needs = card.needs.map((n) => {
      const target = resolveName(n);
      if (target === undefined) throw bad(at, `"${n}" names no card or ref of this file`);
      return target;
    });
    if (card.key !== undefined && !cards.has(card.key))
      throw bad(at, `"key" names no card "${card.key}"`);
    if (card.replaces !== undefined && !isCardId(card.replaces)) {
      const target = cards.get(resolveName(card.replaces) as string) as SeedCard;
      if (target.identity !== card.identity)
        throw bad(at, `it replaces "${target.name}" of another identity`);
      if (replacedBy.has(target.name))
        throw bad(at, `"${target.name}" is replaced by "${replacedBy.get(target.name)}" already`);
      if (target.revoke) throw bad(at, `it replaces "${target.name}", which is revoked`);
      replacedBy.set(target.name, card.name);
    }
  }
  refuseIdenticalSnapshots(cards, resolveName);
  // Kahn's algorithm, iterative so that a chain of 100,000 cards does not blow the stack, taking
  // the ready card that comes first in the file each time: cards are made in file order, a card
  // that names a later one waiting for it.
  const position = new Map([...cards.keys()].map((name, i) => [name, i]));
  const waiting = new Map<string, number>();
  const dependents = new Map<string, string[]>();
  for (const card of cards.values()) {
    const needs = [...new Set(card.needs)];
    waiting.set(card.name, needs.length);
    for (const need of needs) {
      const list = dependents.get(need);
      if (list) list.push(card.name);
      else dependents.set(need, [card.name]);
    }
  }
  const ready = new FileOrderQueue((name) => position.get(name) as number);
  for (const c of cards.values()) if (waiting.get(c.name) === 0) ready.push(c.name);
  const out: SeedCard[] = [];
  for (let name = ready.pop(); name !== undefined; name = ready.pop()) {
    out.push(cards.get(name) as SeedCard);
    for (const next of dependents.get(name) ?? []) {
      const left = (waiting.get(next) as number) - 1;
      waiting.set(next, left);
      if (left === 0) ready.push(next);
    }
  }
  if (out.length !== cards.size) {
    const stuck = [...waiting].filter(([, n]) => n > 0).map(([name]) => name);
    throw bad('cards', `references go round in a circle: ${stuck.slice(0, 5).join(', ')}`);
  }
  return out;
}

/**
 * Two cards of one identity with the same key, created at the same second and naming the same
 * previous card have the same snapshot (spec 2.4: the id is its hash), and the service refuses
 * the second (40027) after the first was created. Found here, before anything is sent.
 */
function refuseIdenticalSnapshots(
  cards: Map<string, SeedCard>,
  resolveName: (name: string) => string | undefined,
): void {
  const seen = new Map<string, string>();
  for (const card of cards.values()) {
    const previous =
      card.replaces === undefined
        ? ''
        : isCardId(card.replaces)
          ? card.replaces.toLowerCase()
          : (resolveName(card.replaces) ?? card.replaces);
    const snapshot = JSON.stringify([
      card.identity,
      card.key ?? card.name,
      card.createdAt ?? 'now',
      previous,
    ]);
    const twin = seen.get(snapshot);
    if (twin !== undefined)
      throw bad(
        `card "${card.name}"`,
        `it would make a snapshot identical to "${twin}"'s (same identity, key, createdAt and previous card): give one a "createdAt" or its own key`,
      );
    seen.set(snapshot, card.name);
  }
}
