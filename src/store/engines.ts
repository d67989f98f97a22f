/**
 * The engine list: which engine opens a store target. Tried in order, the first whose `matches`
 * takes the target opens it: "memory:", a PostgreSQL URL, else a JSON store file (any target
 * that is no URL). Adding an engine is a folder under src/store/ and a line here
 * (docs/development.md); an engine registered from outside goes before these.
 */
import { CardsError } from '../core/errors.js';
import type { EngineKind } from './engine.js';
import { json } from './json/index.js';
import { memory } from './memory/index.js';
import { postgres } from './postgres/index.js';

const ENGINES: EngineKind[] = [memory, postgres, json];

/** Adds an engine ahead of the built-in ones (a test's throwaway engine, an extension). */
export function registerEngine(kind: EngineKind): void {
  ENGINES.unshift(kind);
}

/** The engine that opens `target`, or STORE_URL_INVALID naming what the engines accept. */
export function engineFor(target: string): EngineKind {
  const kind = ENGINES.find((engine) => engine.matches(target));
  if (kind) return kind;
  // No password in the message: of a URL no engine knows, only its scheme is named.
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(target)?.[0] ?? target;
  throw new CardsError(
    'STORE_URL_INVALID',
    `A store "${scheme}//…" is not one cards can open: expected ${ENGINES.map((e) => e.targets).join(', or ')}.`,
  );
}
