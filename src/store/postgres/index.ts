/**
 * The PostgreSQL engine's line in the engine list (../engines.ts). Its modules, and the `pg`
 * driver, load only when a PostgreSQL target is opened: a JSON or memory server never pays for
 * them at start-up.
 */
import type { EngineKind } from '../engine.js';

const engine = (): Promise<typeof import('./postgres-engine.js')> => import('./postgres-engine.js');

export const postgres: EngineKind = {
  name: 'postgres',
  targets: 'a PostgreSQL URL (postgres://USER:PASSWORD@HOST:PORT/DATABASE)',
  matches: (target) => /^postgres(ql)?:/i.test(target),
  open: async (target, options) => (await engine()).openPostgresEngine(target, options),
  peek: async (target, name) => (await engine()).peekSecret(target, name),
};
