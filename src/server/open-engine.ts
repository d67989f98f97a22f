/**
 * The engine a server, `cards export`, `cards import` and `cards db migrate` work on: which one a
 * store target names (src/store/engines.ts), and opening it. The CLI reaches engines only through
 * here. `cards serve` takes `--store`, then CARDS_STORE, then `--db`/CARDS_DB when given, then
 * DATABASE_URL, then the default file; nothing changes for a user who never asks for PostgreSQL.
 */
import { CardsError } from '../core/errors.js';
import type { Engine, EngineOptions, SecretName } from '../store/engine.js';
import { engineFor } from '../store/engines.js';

export type { Engine, EngineOptions } from '../store/engine.js';
export { MEMORY_TARGET } from '../store/memory/index.js';

export interface StoreTargetSources {
  /** `--store` (commander also fills it from CARDS_STORE). */
  readonly store?: string | undefined;
  /** `--db`, when given on the command line or through CARDS_DB (not its default). */
  readonly db?: string | undefined;
  /** The environment's DATABASE_URL. */
  readonly databaseUrl?: string | undefined;
  readonly fallback: string;
}

/** The store to open: --store / CARDS_STORE > --db / CARDS_DB > DATABASE_URL > the default. */
export function resolveStoreTarget(sources: StoreTargetSources): string {
  const given = (value: string | undefined): value is string => value !== undefined && value !== '';
  if (given(sources.store)) return sources.store;
  if (given(sources.db)) return sources.db;
  if (given(sources.databaseUrl)) return sources.databaseUrl;
  return sources.fallback;
}

/** Opens the engine of `target` (a JSON store takes its lock: one server per file). */
export async function openEngine(target: string, options: EngineOptions = {}): Promise<Engine> {
  return engineFor(target).open(target, options);
}

/** A secret kept at `target`, read without opening its engine (nothing made or migrated). */
export async function peekSecret(
  target: string,
  name: SecretName,
): Promise<{ value?: string; where: string }> {
  const kind = engineFor(target);
  if (!kind.peek)
    throw new CardsError('USAGE', `A ${kind.name} store's secrets cannot be read from outside.`);
  return kind.peek(target, name);
}
