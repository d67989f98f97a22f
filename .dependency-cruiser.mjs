// The import graph of src/, checked by `npm run check`, so data flows one way: no
// circle, type-only imports included, and every arrow between src/ folders runs down. Each
// folder stands on the folders listed for it and on nothing else of src/:
//   core ← crypto ← io ← log ← store ← registry ← http ← witness ← server ← cli
// with client (the HTTP client) and pythia (the worker threads that run the Pythia WebAssembly)
// on core and crypto beside them. src/io is the file-system floor (durable writes, private key
// files) of store, log, http, witness, server and cli; an engine (src/store/<engine>/) holds the
// log's tiles, so the store stands on the log's TileStore; the witness serves on the one HTTP
// stack of src/http, and the server home starts it as it starts `cards serve`; the server's
// witness client speaks HTTP through src/client's.
const LAYERS = {
  core: [],
  crypto: ['core'],
  io: ['core', 'crypto'],
  log: ['core', 'crypto', 'io'],
  store: ['core', 'io', 'log'],
  registry: ['core', 'crypto', 'store', 'log'],
  http: ['core', 'crypto', 'io', 'log', 'registry'],
  client: ['core', 'crypto'],
  pythia: ['core', 'crypto'],
  witness: ['core', 'crypto', 'io', 'log', 'http'],
  server: [
    'core',
    'crypto',
    'io',
    'store',
    'log',
    'registry',
    'http',
    'client',
    'pythia',
    'witness',
  ],
  cli: [
    'core',
    'crypto',
    'io',
    'store',
    'log',
    'registry',
    'http',
    'client',
    'pythia',
    'server',
    'witness',
  ],
};

const layer = ([name, below]) => ({
  name: `${name}-stands-on`,
  comment: `src/${name} stands on ${below.length === 0 ? 'nothing else of src/' : below.join(', ')} only.`,
  severity: 'error',
  from: { path: `^src/${name}/` },
  to: { path: '^src/', pathNot: `^src/(${[name, ...below].join('|')})/` },
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
    ...Object.entries(LAYERS).map(layer),
    {
      name: 'no-folder-unlisted',
      comment: 'Every folder of src/ has its place in LAYERS.',
      severity: 'error',
      from: { path: '^src/[^/]+/', pathNot: `^src/(${Object.keys(LAYERS).join('|')})/` },
      to: {},
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
          '^src/(server/defaults|client/defaults|core/errors)[.]ts$',
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
        '(never fs, http, process, chalk, inquirer, commander or lowdb).',
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
    // A checkout whose node_modules is a link to another's (a git worktree) resolves packages
    // by the link's path, so the rules' node_modules paths hold there as in a plain clone.
    preserveSymlinks: true,
  },
};
