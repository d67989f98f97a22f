/**
 * Fastify's own schema compilers (ajv for a route's query string, fast-json-stringify for a
 * response schema), given to fastify through its `schemaController.compilersFactory` option and
 * loaded on the first request that needs one rather than when the server starts: loading ajv and
 * compiling the admin routes' schemas is about a tenth of a start-up on a 100,000-card store,
 * and most starts serve no admin request for a while. A route's schema is compiled once, on its
 * first request; its checks and refusals are the ones fastify builds by default.
 *
 * Never replaces what a compiler decides: each one is fastify's default, from fastify's own
 * dependencies (the versions it would load itself).
 */
import { createRequire } from 'node:module';
import type { FastifyServerOptions } from 'fastify';

type CompilersFactory = NonNullable<
  NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']
>;

/** What fastify hands a compiler for one part of one route. */
interface RouteSchema {
  readonly schema: unknown;
  readonly method: string;
  readonly url: string;
  readonly httpPart?: string;
}
type Validate = ((data: unknown) => unknown) & { errors?: unknown };
type Compiler = (route: RouteSchema) => (data: unknown) => unknown;
type Factory = (externalSchemas: unknown, options: unknown) => Compiler;

/** Fastify's dependencies, resolved from fastify's folder as fastify itself requires them. */
const fromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'));

/**
 * A factory fastify calls when a route with a schema is added, whose compiler defers `load`'s
 * factory (and the compile) to the route's first request. The function it hands fastify reads
 * the real validator's `errors`, as fastify reads them after a failed check.
 */
function deferred(load: () => Factory): Factory {
  let factory: Factory | undefined;
  return (externalSchemas, options) => {
    let compiler: Compiler | undefined;
    return (route) => {
      let compiled: Validate | undefined;
      const run = (data: unknown): unknown => {
        factory ??= load();
        compiler ??= factory(externalSchemas, options);
        compiled ??= compiler(route) as Validate;
        return compiled(data);
      };
      Object.defineProperty(run, 'errors', { get: () => compiled?.errors });
      return run;
    };
  };
}

export const lazyCompilers = {
  buildValidator: deferred(() =>
    (fromFastify('@fastify/ajv-compiler') as () => Factory)(),
  ) as unknown as CompilersFactory['buildValidator'],
  buildSerializer: deferred(() =>
    (fromFastify('@fastify/fast-json-stringify-compiler') as () => Factory)(),
  ) as unknown as CompilersFactory['buildSerializer'],
};
