// The import graph of src/, checked by `npm run check` (issue 10; CONVENTIONS "The shape of the
// house"): no circle, type-only imports included, and every arrow between src/ folders runs
// down: core ← crypto ← log ← store ← (registry, http, client) ← server ← cli. src/io is the
// shared file-system floor (durable writes) that log, store, server and cli stand on. An engine
// (src/store/<engine>/) holds the log's tiles, so the store stands on the log's TileStore.
const layer = (name, comment, allowed) => ({
  name,
  comment,
  severity: 'error',
  from: { path: `^src/${name.replace(/-.*/, '')}/` },
  to: { path: '^src/', pathNot: `^src/(${allowed.join('|')})/` },
});

export default {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'A circle of imports (a type-only import counts): move the shared piece down.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    layer('core', 'src/core is the ground floor: it imports nothing else of src/.', ['core']),
    layer('crypto', 'src/crypto stands on core only.', ['core', 'crypto']),
    layer('io', 'src/io (durable writes) stands on core only.', ['core', 'io']),
    layer('store', 'src/store stands on core, io and log only.', ['core', 'io', 'log', 'store']),
    layer('log', 'src/log stands on core, crypto and io only.', ['core', 'crypto', 'io', 'log']),
    layer(
      'pythia',
      'src/pythia (the worker threads that run the Pythia WebAssembly) stands on core and crypto only.',
      ['core', 'crypto', 'pythia'],
    ),
    layer('registry', 'src/registry stands on core, crypto, store and log only.', [
      'core',
      'crypto',
      'store',
      'log',
      'registry',
    ]),
    layer('http', 'src/http stands on core, crypto, io and registry only.', [
      'core',
      'io',
      'crypto',
      'registry',
      'http',
    ]),
    layer('client', 'src/client stands on core and crypto only.', ['core', 'crypto', 'client']),
    {
      name: 'server-not-cli',
      comment: 'src/server may use every layer but the CLI above it.',
      severity: 'error',
      from: { path: '^src/server/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'cli-through-server',
      comment:
        'The CLI reaches engines, the registry and servers only through the server home (src/server).',
      severity: 'error',
      from: { path: '^src/cli/' },
      to: { path: '^src/(store|registry|http|witness)/' },
    },
    {
      name: 'declarations-light',
      comment:
        'What `cards --help` and `--version` load (program.ts and every command declaration, ' +
        'commands/*/index.ts) loads nothing heavy: a run imports its command module when it runs.',
      severity: 'error',
      from: {
        path: '^src/cli/(program|command|flags|text)[.]ts$|^src/cli/commands/[^/]+/index[.]ts$',
      },
      to: {
        pathNot: [
          '^src/cli/(command|exit-status|flags|text|version)[.]ts$',
          '^src/cli/commands/[^/]+/index[.]ts$',
          '^src/(server/defaults|core/errors)[.]ts$',
          '^node_modules/commander/',
        ],
        dependencyTypesNot: ['type-only', 'dynamic-import'],
      },
    },
    {
      name: 'commands-independent',
      comment:
        'A command (its folder) does not import another; what two share goes to a module in src/cli/.',
      severity: 'error',
      from: { path: '^src/cli/commands/([^/]+)/' },
      to: { path: '^src/cli/commands/', pathNot: '^src/cli/commands/$1/' },
    },
    {
      name: 'core-crypto-pure',
      comment:
        'core and crypto are pure: no file system, network, process or terminal modules ' +
        '(CONVENTIONS: the core never imports fs, http, process, chalk, inquirer, commander, lowdb).',
      severity: 'error',
      from: { path: '^src/(core|crypto)/' },
      to: {
        path: [
          '^(node:)?(fs|fs/promises|http|https|http2|net|tls|dgram|child_process|cluster|os|process|readline|worker_threads)$',
          '^(chalk|inquirer|commander|lowdb|fastify|@fastify/.*)$',
        ],
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
