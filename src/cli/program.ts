/**
 * Every command, its flags and its examples, declared in this one file (house habit 6).
 * Actions load their module on demand so that `cards --version` and `--help` stay fast.
 */
import { Argument, Command, Option } from 'commander';
import {
  DEFAULT_COMPACT_BYTES,
  DEFAULT_DB,
  DEFAULT_HOST,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_PORT,
  DEFAULT_REQUEST_TIMEOUT_SECONDS,
  DEFAULT_URL,
} from '../server/defaults.js';
import { VERSION } from './version.js';
import type { AdminFlags } from './admin-access.js';
import type { BuildOptions } from './commands/build.js';
import type { PublishOptions } from './commands/create.js';
import type { GetOptions } from './commands/get.js';
import type { InitOptions } from './commands/init.js';
import type { InspectOptions } from './commands/inspect.js';
import type { JwtOptions } from './commands/jwt.js';
import type { KeyPublicOptions, KeyServiceOptions } from './commands/key.js';
import type { KeygenOptions } from './commands/keygen.js';
import type { LogAuditOptions } from './commands/log-audit.js';
import type { MonitorOptions } from './commands/monitor.js';
import type { VerifyOptions } from './commands/verify.js';
import type { RevokeOptions } from './commands/revoke.js';
import type { RotateOptions } from './commands/rotate.js';
import type { SearchOptions } from './commands/search.js';
import type { SeedOptions } from './commands/seed.js';
import type { UnregisterOptions } from './commands/unregister.js';
import type { OutputFlags } from './output.js';
import type { run as RunCommand } from './run.js';
import type { ServeFlags } from './serve-settings.js';
import type { ConnectionFlags, TransferRoute } from './settings.js';

/** completion.ts's SHELLS, literal here so that --help loads nothing else. */
const SHELL_NAMES = ['bash', 'zsh', 'fish'] as const;

export function buildProgram(): Command {
  const program = new Command('cards')
    .description('Create, inspect, verify and serve public-key Cards (Cards Service v5).')
    .version(VERSION, '-V, --version')
    .option(
      '--debug',
      'print each HTTP request and response on stderr, token redacted (CARDS_DEBUG=1)',
    )
    // The client reads CARDS_DEBUG from the command's environment (connection.ts).
    .hook('preAction', (command) => {
      if (command.opts().debug === true) process.env.CARDS_DEBUG = '1';
    })
    .exitOverride()
    // Errors are printed by main.ts in the one format of every error (issue 12.11).
    .configureOutput({ outputError: () => undefined })
    .addHelpText(
      'after',
      `
Examples:
  $ cards serve                       # a local Cards Service on http://127.0.0.1:8080
  $ cards keygen --identity alice     # a key pair into the keystore (~/.cards/keys)
  $ cards create --identity alice     # build, sign and publish alice's card
  $ cards search alice                # alice's cards, newest first
  $ cards inspect card.json           # decode and verify offline
  $ cards --version

Settings: flags > environment (CARDS_URL, CARDS_TOKEN, CARDS_APP_KEY, CARDS_DB, …) > config
profile (\`cards init\`) > defaults. Exit statuses: 0 ok, 1 internal, 2 usage, 3 not found,
4 refused, 5 verification failed, 6 unreachable, 7 unauthorized, 8 log forked or rewound,
9 PostgreSQL store cannot be opened, 130 cancelled (Ctrl-C).`,
    );

  // Shared flag groups. Settings resolve flags > env > config profile > defaults (settings.ts),
  // so no commander defaults or .env() here: the resolution happens in one place.
  const output = (cmd: Command): Command =>
    cmd
      .option('--json', 'print exactly one JSON document on stdout')
      .option('--no-color', 'no colour (also off under NO_COLOR or when stdout is not a terminal)');
  const identity = (cmd: Command): Command =>
    cmd.option('--identity <id>', "the identity (env CARDS_IDENTITY, or the profile's)");
  const profile = (cmd: Command): Command =>
    cmd.option('--profile <name>', 'config profile to use (env CARDS_PROFILE; see `cards init`)');
  const connection = (cmd: Command): Command =>
    profile(cmd)
      .option('--url <url>', `service base URL (env CARDS_URL; default ${DEFAULT_URL})`)
      .option('--token <jwt>', 'access token to send as is (env CARDS_TOKEN)')
      .option(
        '--timeout <seconds>',
        'give up on a request after this long in all (env CARDS_TIMEOUT; default 30)',
      )
      .option(
        '--app-key <file>',
        'app private key that mints a token per identity (env CARDS_APP_KEY)',
      )
      .option(
        '--app-config <file>',
        'vendor app credentials JSON {APP_ID, APP_KEY_ID, APP_KEY}: mints stock VEDS512 tokens (env CARDS_APP_CONFIG)',
      )
      .option(
        '--db <file>',
        `store of a local \`cards serve\`: with no token or app key, its app key beside it is used (env CARDS_DB; default ${DEFAULT_DB})`,
      )
      .addOption(
        new Option(
          '--compat <profile>',
          'the kind of service: "service" (`cards serve`, the Cards spec) or "virgil" (Virgil\'s cloud, its stock SDK) (env CARDS_COMPAT)',
        ).choices(['service', 'virgil']),
      );
  const collect = (value: string, previous: string[] = []): string[] => [...previous, value];
  const buildFlags = (cmd: Command): Command =>
    identity(cmd)
      .option('--key <file>', 'owner private key (default: the keystore key of the identity)')
      .option('--new-key', 'make and store a key when the keystore has none for the identity')
      .option('--previous <card-id>', 'the card this one replaces (previous_card_id)')
      .option('--signer <name=keyfile>', 'another signer and its private key; repeatable', collect)
      .option(
        '--extra <[name=]json|@file>',
        'extra snapshot for a signature (self unless NAME=); JSON text or @FILE; repeatable',
        collect,
      )
      .option('--created-at <seconds>', 'created_at, UNIX seconds (default: now)');

  // Each action loads its command module, and run.ts (output, chalk), only when it runs.
  const run: typeof RunCommand = async (...args) => (await import('./run.js')).run(...args);

  output(identity(profile(program.command('keygen'))))
    .description(
      'Make a key pair (Ed25519 unless --type): into the keystore (per identity) or a file (PEM PKCS#8).',
    )
    .addOption(
      new Option('--type <type>', "key type, in the stock client's formats")
        .choices(['ed25519', 'p256', 'rsa2048', 'rsa3072', 'rsa4096', 'rsa8192'])
        .default('ed25519'),
    )
    .option('--out <file>', 'write the private key to FILE instead of the keystore')
    .option('--force', 'replace an existing key (the old one is lost)')
    .addHelpText(
      'after',
      `
Prints the public key (base64 DER SPKI). Keystore: $CARDS_HOME/keys (default ~/.cards/keys),
one file per identity, mode 0600 in a 0700 folder.

Examples:
  $ cards keygen --identity alice
  $ cards keygen --identity bob --type p256
  $ cards keygen --out app-key.pem --json

Types: ed25519 (default; the stock KeyPairType ED25519), p256 (SECP256R1), rsa2048 … rsa8192
(RSA_2048 … RSA_8192). The compound types (CURVE25519_ED25519, CURVE25519_ROUND5_ED25519_FALCON)
are made by the stock client only; the server and \`cards inspect\` verify them.`,
    )
    .action(async (opts: KeygenOptions & OutputFlags) => {
      const { keygen } = await import('./commands/keygen.js');
      await run('keygen', opts, (ctx) => keygen(ctx, opts));
    });

  const key = program.command('key').description('Keys: the public half of a key, the keystore.');
  output(key.command('public').argument('[file]', 'private key file (PEM or base64 DER PKCS#8)'))
    .description('Print the public key (base64 DER SPKI) of a private key file or keystore key.')
    .option('--identity <id>', 'the keystore key of this identity instead of FILE')
    .addHelpText(
      'after',
      `
Examples:
  $ cards key public alice.pem
  $ cards key public --identity alice --json`,
    )
    .action(async (file: string | undefined, opts: KeyPublicOptions & OutputFlags) => {
      const { keyPublic } = await import('./commands/key.js');
      await run('keyPublic', opts, (ctx) => keyPublic(ctx, { ...opts, ...(file ? { file } : {}) }));
    });
  output(profile(key.command('service')))
    .description('Print the public service key of a local `cards serve` store (for inspect).')
    .option('--db <file>', `the store (env CARDS_DB; default ${DEFAULT_DB})`)
    .addHelpText(
      'after',
      `
The key beside the store (cards.service-key.pem for cards.json), made by \`cards serve\` on
first start. \`cards inspect\` uses it by itself when --db names the store.

Examples:
  $ cards key service
  $ cards inspect card.json --service-key "$(cards key service --db data/cards.json)"`,
    )
    .action(async (opts: KeyServiceOptions & OutputFlags) => {
      const { keyService } = await import('./commands/key.js');
      await run('keyPublic', opts, (ctx) => keyService(ctx, opts));
    });
  output(key.command('list'))
    .description('List the identities that have a key in the keystore.')
    .addHelpText(
      'after',
      '\nExamples:\n  $ cards key list\n  $ CARDS_HOME=/tmp/home cards key list --json',
    )
    .action(async (opts: OutputFlags & OutputFlags) => {
      const { keyList } = await import('./commands/key.js');
      await run('keyList', opts, (ctx) => keyList(ctx));
    });

  output(identity(connection(program.command('jwt'))))
    .description('Mint an access token for an identity, signed by the app key.')
    .option('--ttl <duration>', 'lifetime: 30s, 20m, 1h, 7d (default 1h)')
    .option(
      '--store <url>',
      'sign with the app key kept in this PostgreSQL store by `cards serve --store URL` (a file: as --db)',
    )
    .addHelpText(
      'after',
      `
Signs with --app-key, or the app key of a local \`cards serve\` found through --db. With
--app-config (the vendor CLI's app credentials) it mints the stock VEDS512 format. With
--store postgres://… it signs with the app key the servers on that database keep there.

Examples:
  $ cards jwt --identity alice
  $ curl -H 'Content-Type: application/json' -H "Authorization: Service $(cards jwt --identity alice)" http://127.0.0.1:8080/card/v5/ID
  $ cards jwt --identity alice --compat virgil --app-config app.json --ttl 20m
  $ cards jwt --identity alice --store postgres://cards@db:5432/cards`,
    )
    .action(async (opts: JwtOptions & OutputFlags) => {
      const { jwt } = await import('./commands/jwt.js');
      await run('jwt', opts, (ctx) => jwt(ctx, opts));
    });

  output(buildFlags(profile(program.command('build'))))
    .description('Build and sign a card offline; print its wire JSON. No network.')
    .option('--out <file>', 'write the card JSON to FILE')
    .addHelpText(
      'after',
      `
Examples:
  $ cards build --identity alice > card.json
  $ cards build --identity alice --signer app=app.pem --extra app='{"role":"admin"}'
  $ cards build --identity alice --previous 3f2a…(64 hex) --key new.pem | cards publish -`,
    )
    .action(async (opts: BuildOptions & OutputFlags) => {
      const { build } = await import('./commands/build.js');
      await run('build', opts, (ctx) => build(ctx, opts));
    });

  output(buildFlags(connection(program.command('create'))))
    .description('Build, sign and publish a card; print the stored card with its id.')
    .addHelpText(
      'after',
      `
Examples:
  $ cards create --identity alice --new-key
  $ cards create --identity alice --previous 3f2a…(64 hex) --key rotated.pem --json
  $ cards create --identity bob --url https://cards.example.com --app-key app.pem`,
    )
    .action(async (opts: BuildOptions & OutputFlags) => {
      const { create } = await import('./commands/create.js');
      await run('publish', opts, (ctx) => create(ctx, opts));
    });

  output(
    connection(
      program.command('publish').argument('[file]', 'card JSON file, or - for stdin (default)'),
    ),
  )
    .description('Publish a card built earlier (`cards build`).')
    .addHelpText(
      'after',
      `
Examples:
  $ cards publish card.json
  $ cards build --identity alice | cards publish - --json`,
    )
    .action(async (file: string | undefined, opts: PublishOptions & OutputFlags) => {
      const { publish } = await import('./commands/create.js');
      await run('publish', opts, (ctx) => publish(ctx, { ...opts, ...(file ? { file } : {}) }));
    });

  output(connection(program.command('get').argument('<id>', 'card id (64 hex characters)')))
    .description('Fetch a card: its state (active, superseded, revoked) and decoded snapshot.')
    .option('--proof', 'save the card (ID.json) and its transparency-log proof (ID.proof) here')
    .addHelpText(
      'after',
      `
"superseded" and "revoked" both come with the service's superseded header; a card that
search lists is superseded (by the card named), one it does not list is in a revoked chain.
The card that revoked it, and the card that replaced it before, are named when they can be
seen: search leaves revoked chains out, so only chains revoked with this CLI's \`cards revoke\`
(noted in CARDS_HOME/revoked-chains.jsonl) show them. A card with an empty key is itself a
revocation.

Examples:
  $ cards get 3f2a…(64 hex)
  $ cards get 3f2a…(64 hex) --json | jq .state`,
    )
    .action(async (id: string, opts: Omit<GetOptions, 'id'> & OutputFlags) => {
      const { get } = await import('./commands/get.js');
      await run('get', opts, (ctx) => get(ctx, { ...opts, id }));
    });

  output(connection(program.command('search').argument('[identity...]', 'identities to look up')))
    .description("Find identities' cards: chains linked, newest first, superseded marked.")
    .option('--from <file>', 'read identities from FILE (one a line; - for stdin)')
    .option(
      '--identity <id>',
      'identity of the token used for the search (default: the first searched)',
    )
    .addHelpText(
      'after',
      `
Many identities are sent in batches of 50. Revoked chains are not returned.

Examples:
  $ cards search alice
  $ cards search alice bob carol --json
  $ cards search --from users.txt`,
    )
    .action(async (identities: string[], opts: Omit<SearchOptions, 'identities'> & OutputFlags) => {
      const { search } = await import('./commands/search.js');
      await run('search', opts, (ctx) => search(ctx, { ...opts, identities }));
    });

  output(connection(program.command('revoke').argument('<id>', 'card id to revoke')))
    .description('Revoke a card by id, or send a revoking card with --with-card.')
    .option('--yes', 'do not ask for confirmation (required without a terminal)')
    .option('--with-card', 'build a revoking card (empty key, previous_card_id ID) and send it')
    .option(
      '--key <file>',
      'with --with-card: sign the revoking card with this key (default: keystore)',
    )
    .option('--created-at <seconds>', 'with --with-card: created_at of the revoking card')
    .addHelpText(
      'after',
      `
Examples:
  $ cards revoke 3f2a…(64 hex)
  $ cards revoke 3f2a…(64 hex) --yes --json
  $ cards revoke 3f2a…(64 hex) --with-card --key alice.pem --yes`,
    )
    .action(async (id: string, opts: Omit<RevokeOptions, 'id'> & OutputFlags) => {
      const { revoke } = await import('./commands/revoke.js');
      await run('revoke', opts, (ctx) => revoke(ctx, { ...opts, id }));
    });

  output(identity(connection(program.command('rotate'))))
    .description(
      "Replace an identity's live card with one for a new key; swap the key once accepted.",
    )
    .option('--previous <card-id>', 'the live card to replace, when the identity has several')
    .option('--prune', "remove the identity's key backups of earlier rotations")
    .addHelpText(
      'after',
      `
Finds the live card (search), makes a new key, publishes the replacement (previous_card_id =
the live card) and only then puts the new key in the keystore; the old key is kept beside it
as <key>.<time>.bak until --prune.

Examples:
  $ cards rotate --identity alice
  $ cards rotate --identity alice --prune --json`,
    )
    .action(async (opts: RotateOptions & OutputFlags) => {
      const { rotate } = await import('./commands/rotate.js');
      await run('rotate', opts, (ctx) => rotate(ctx, opts));
    });

  output(identity(connection(program.command('unregister'))))
    .description("Revoke an identity's live cards, then delete its private key from the keystore.")
    .option('--yes', 'do not ask for confirmation (required without a terminal)')
    .option('--keep-key', 'revoke the cards but keep the private key')
    .addHelpText(
      'after',
      `
The key is deleted only after every revoke succeeded.

Examples:
  $ cards unregister --identity alice
  $ cards unregister --identity alice --yes --json`,
    )
    .action(async (opts: UnregisterOptions & OutputFlags) => {
      const { unregister } = await import('./commands/unregister.js');
      await run('unregister', opts, (ctx) => unregister(ctx, opts));
    });

  output(
    connection(
      program
        .command('inspect')
        .argument('[input]', 'card JSON file, - for stdin (default), or a CARD_ID to fetch'),
    ),
  )
    .description(
      'Decode and verify a card offline: fields, id, signatures, limits. Exit 5 if anything fails.',
    )
    .option(
      '--service-key <key>',
      "the service's public key (base64 DER SPKI, PEM or a file) to check its signature (env CARDS_SERVICE_KEY; default: the key beside --db's store, if any)",
    )
    .option('--trust <name=key>', 'a public key for another signer; repeatable', collect)
    .addHelpText(
      'after',
      `
The service signature is checked with --service-key, else with the key a local \`cards serve\`
keeps beside its store (--db, CARDS_DB, ./cards.json; print it with \`cards key service\`);
without either, the report says it was NOT checked.

Examples:
  $ cards inspect card.json
  $ cards build --identity alice | cards inspect -
  $ cards inspect 3f2a…(64 hex) --service-key MCowBQYDK2VwAyEA… --trust app=app.pub --json`,
    )
    .action(async (input: string | undefined, opts: InspectOptions & OutputFlags) => {
      const { inspect, inspectVerdict } = await import('./commands/inspect.js');
      await run(
        'inspect',
        opts,
        (ctx) => inspect(ctx, { ...opts, ...(input ? { input } : {}) }),
        inspectVerdict,
      );
    });

  output(connection(program.command('seed').argument('<file>', 'seed file (JSON; - for stdin)')))
    .description('Create many cards from a seed file: identities, chains, revocations, references.')
    .option('--concurrency <n>', 'requests in flight (default 16)')
    .option('--save-keys', "save each identity's newest live key into the keystore")
    .option('--force', 'with --save-keys: replace keys already in the keystore')
    .addHelpText(
      'after',
      `
The format is in docs/cli.md ("Seed files"); fixtures/seed-example.json is an example.

Examples:
  $ cards seed fixtures/seed-example.json
  $ cards seed big.json --concurrency 32 --json > ids.json`,
    )
    .action(async (file: string, opts: Omit<SeedOptions, 'file'> & OutputFlags) => {
      const { seed } = await import('./commands/seed.js');
      await run('seed', opts, (ctx) => seed(ctx, { ...opts, file }));
    });

  output(
    connection(
      program
        .command('verify')
        .argument('<card>', 'a card id, or a card JSON file (its proof beside it: FILE.proof)'),
    ),
  )
    .description(
      "Check that a card is in the service's transparency log, and that the log never forked.",
    )
    .option('--log-key <vkey>', 'the log key `cards serve` prints (name+id+key)')
    .option('--witness <vkey>', 'require a cosignature by this witness; repeatable', collect)
    .option('--proof <file>', 'the tlog-proof file (default: beside the card, or fetched)')
    .addHelpText(
      'after',
      `
Checks the card's id, its inclusion proof against a checkpoint signed by --log-key (cosigned
by each --witness), and that checkpoint's consistency with the last one accepted for the log
(kept in $CARDS_HOME/logs/), from tiles fetched from --url. A log that forked or rewound exits 8.

Examples:
  $ cards verify 3f2a…(64 hex) --log-key cards.local/0a1b…+c2b3f6f1+AZF9…
  $ cards get 3f2a…(64 hex) --proof && cards verify 3f2a….json --log-key "$LOG_KEY"`,
    )
    .action(async (input: string, opts: Omit<VerifyOptions, 'input'> & OutputFlags) => {
      const { verify } = await import('./commands/verify.js');
      await run('verify', opts, (ctx) => verify(ctx, { ...opts, input }));
    });

  output(identity(connection(program.command('monitor'))))
    .description(
      'Report every card of an identity the log holds (new keys, replacements, revocations).',
    )
    .option('--expect-key <key...>', 'the keys the identity published; any other exits 5')
    .option('--follow', 'keep watching (every --interval ms) until interrupted')
    .option('--interval <ms>', 'with --follow: time between checkpoint fetches (default 1000)')
    .option('--log-key <vkey>', "verify the log's checkpoints with this key")
    .addHelpText(
      'after',
      `
Reads the log's entries from where the last run stopped (state in $CARDS_HOME/monitor/),
checking them against the signed tree.

Examples:
  $ cards monitor --identity alice
  $ cards monitor --identity alice --expect-key MCowBQYDK2VwAyEA… --log-key "$LOG_KEY" --follow`,
    )
    .action(async (opts: MonitorOptions & OutputFlags) => {
      const { monitor, monitorVerdict } = await import('./commands/monitor.js');
      await run('monitor', opts, (ctx) => monitor(ctx, opts), monitorVerdict);
    });

  output(connection(program.command('log').description('The transparency log.').command('audit')))
    .description(
      'Recompute the log from its entries; check it against the checkpoint and the registry.',
    )
    .option('--log-key <vkey>', "verify the log's checkpoint with this key")
    .option('--no-cards', 'check the tree only, not that each entry is a card the registry serves')
    .option('--concurrency <n>', 'requests in flight (default 16)')
    .option(
      '--admin-token <token>',
      "the server's admin token, for its list of cards (env CARDS_ADMIN_TOKEN, the profile's adminToken, or the token file beside --db)",
    )
    .addHelpText(
      'after',
      `
Examples:
  $ cards log audit --url http://127.0.0.1:8080 --log-key "$LOG_KEY"
  $ cards log audit --url https://cards.example.com --no-cards --json`,
    )
    .action(async (opts: LogAuditOptions & OutputFlags) => {
      const { logAudit, logAuditVerdict } = await import('./commands/log-audit.js');
      await run('logAudit', opts, (ctx) => logAudit(ctx, opts), logAuditVerdict);
    });

  output(program.command('init'))
    .description('Write a config profile (asks on a terminal; flags answer instead).')
    .option('--profile <name>', 'profile name (default "default")')
    .option('--url <url>', 'service base URL')
    .option('--identity <id>', 'default identity')
    .addOption(new Option('--compat <profile>', 'wire words').choices(['service', 'virgil']))
    .option('--app-key <file>', 'app private key that mints tokens')
    .option('--app-config <file>', 'vendor app credentials JSON')
    .option('--db <file>', 'store of a local `cards serve`')
    .option('--service-key <key>', "the service's public key, for `cards inspect`")
    .option('--default', 'make this the default profile')
    .option('--force', 'replace the profile if it exists')
    .option('--yes', 'ask nothing; take the flags as they are')
    .addHelpText(
      'after',
      `
The config file is $CARDS_CONFIG, else $CARDS_HOME/config.json (default ~/.cards/config.json).

Examples:
  $ cards init
  $ cards init --profile prod --url https://cards.example.com --app-key app.pem --identity alice --yes`,
    )
    .action(async (opts: InitOptions & OutputFlags) => {
      const { init } = await import('./commands/init.js');
      await run('init', opts, (ctx) => init(ctx, opts));
    });

  const config = output(identity(connection(program.command('config'))))
    .description('Show the config file, its profiles and each setting in force with its source.')
    .option('--service-key <key>', "the service's public key, for `cards inspect`")
    .addHelpText(
      'after',
      '\nExamples:\n  $ cards config\n  $ cards config --profile prod --json\n  $ cards config set url http://127.0.0.1:9000\n  $ cards config use prod',
    )
    .action(async (opts: ConnectionFlags & OutputFlags) => {
      const { showConfig } = await import('./commands/config.js');
      await run('config', opts, (ctx) => showConfig(ctx, opts));
    });
  output(
    profile(
      config
        .command('set')
        .argument('<key>', 'url, identity, compat, db, app-key, app-config or service-key')
        .argument('<value>', 'its value (file paths are stored absolute)'),
    ),
  )
    .description('Set one setting of a profile (the default one unless --profile).')
    // `config` declares --profile and --json too and takes them wherever they stand.
    .action(async (key: string, value: string, _opts: unknown, command: Command) => {
      const opts = command.optsWithGlobals<{ profile?: string } & OutputFlags>();
      const { configSet } = await import('./commands/config.js');
      await run('configChange', opts, (ctx) => configSet(ctx, { ...opts, key, value }));
    });
  output(config.command('use').argument('<profile>', 'a profile of the config file'))
    .description('Make a profile the default.')
    .action(async (name: string, _opts: unknown, command: Command) => {
      const opts = command.optsWithGlobals<OutputFlags>();
      const { configUse } = await import('./commands/config.js');
      await run('configChange', opts, (ctx) => configUse(ctx, { profile: name }));
    });

  program
    .command('completion')
    .addArgument(new Argument('<shell>', 'the shell').choices(SHELL_NAMES))
    .description('Print a shell completion script (bash, zsh or fish).')
    .addHelpText(
      'after',
      `
Examples:
  $ eval "$(cards completion bash)"          # in ~/.bashrc
  $ eval "$(cards completion zsh)"           # in ~/.zshrc
  $ cards completion fish > ~/.config/fish/completions/cards.fish`,
    )
    .action(async (shell: string) => {
      const { completionScript } = await import('./completion.js');
      // Our own text, made from the command tree (nothing a card holds): written as is, not
      // through the views, which escape every string they are given (newlines included).
      process.stdout.write(completionScript(program, shell as (typeof SHELL_NAMES)[number]));
    });

  // The admin commands (issue 15): against a server's admin API (/_cards/…).
  const admin = (cmd: Command): Command =>
    output(connection(cmd)).option(
      '--admin-token <token>',
      "the server's admin token (env CARDS_ADMIN_TOKEN, the profile's adminToken, or the token file beside --db)",
    );
  type AdminOpts = AdminFlags & OutputFlags;
  admin(program.command('list'))
    .description('Every card of a server in insertion order, with its state (admin API).')
    .option('--limit <n>', 'cards per page (default 100)')
    .option('--cursor <cursor>', 'start after this cursor (from a previous page)')
    .option('--all', 'every page')
    .action(async (opts: AdminOpts & { limit?: string; cursor?: string; all?: boolean }) => {
      const { listCards } = await import('./commands/admin.js');
      await run('list', opts, (ctx) => listCards(ctx, opts));
    });
  admin(program.command('history').argument('<identity>'))
    .description("An identity's whole history: every chain, every card, states and dates.")
    .action(async (identity: string, opts: AdminOpts) => {
      const { history } = await import('./commands/admin.js');
      await run('history', opts, (ctx) => history(ctx, identity, opts));
    });
  admin(program.command('requests'))
    .description('The last requests a server served (its request journal).')
    .option('--limit <n>', 'how many (default 100)')
    .action(async (opts: AdminOpts & { limit?: string }) => {
      const { requests } = await import('./commands/admin.js');
      await run('requests', opts, (ctx) => requests(ctx, opts));
    });
  admin(program.command('reset'))
    .description("Empty a server's registry (admin API).")
    .option('--yes', 'confirm: every card is removed')
    .action(async (opts: AdminOpts & { yes?: boolean }) => {
      const { reset } = await import('./commands/admin.js');
      await run('reset', opts, (ctx) => reset(ctx, opts));
    });
  // export / import: a store directly (--store FILE|URL, --db, DATABASE_URL; issue 14) or a
  // running server through its admin API (a URL set; issue 15): settings.ts transferRoute.
  const routeOf = async (command: Command): Promise<TransferRoute> => {
    const [{ processContext }, { transferRoute }] = await Promise.all([
      import('./context.js'),
      import('./settings.js'),
    ]);
    return transferRoute(processContext(), command.opts());
  };
  admin(program.command('export'))
    .description(
      'Every stored card as NDJSON, one record per line, in insertion order: from a store (--store FILE|URL, --db) or from a running server (--url, admin API).',
    )
    .option('--store <url|file>', 'a PostgreSQL URL or a JSON store file (env CARDS_STORE)')
    .option('--out <file>', 'write to this new file instead of stdout')
    .addHelpText(
      'after',
      '\nExamples:\n  $ cards export --store cards.json > dump.ndjson\n  $ cards export --store postgres://cards@db:5432/cards > dump.ndjson\n  $ cards export --url http://127.0.0.1:8080 --out dump.ndjson',
    )
    .action(async (opts: AdminOpts & { out?: string; store?: string }, command: Command) => {
      const route = await routeOf(command);
      if (route.via === 'server') {
        const { exportCards } = await import('./commands/admin.js');
        return run('export', opts, (ctx) => exportCards(ctx, opts));
      }
      const { exportCommand } = await import('./commands/transfer.js');
      return exportCommand({ ...opts, store: route.store });
    });
  admin(
    program.command('import').argument('[file]', 'NDJSON from cards export; - or none for stdin'),
  )
    .description(
      'Store the cards of an NDJSON dump, each verified (id, self signature): into a store (--store, --db) or a running server (--url, admin API); an empty one unless --append.',
    )
    .option('--store <url|file>', 'a PostgreSQL URL or a JSON store file (env CARDS_STORE)')
    .option('--append', 'add to a registry that holds cards already, card by card with its rules')
    .addHelpText(
      'after',
      '\nExamples:\n  $ cards import --store postgres://cards@db:5432/cards < dump.ndjson\n  $ cards export --store old.json | cards import --store new.json\n  $ cards import dump.ndjson --url http://127.0.0.1:8080',
    )
    .action(
      async (
        file: string | undefined,
        opts: AdminOpts & { append?: boolean; store?: string },
        command: Command,
      ) => {
        const route = await routeOf(command);
        if (route.via === 'server') {
          const { importCards } = await import('./commands/admin.js');
          return run('import', opts, (ctx) => importCards(ctx, file ?? '-', opts));
        }
        const { importCommand } = await import('./commands/transfer.js');
        return importCommand({ ...opts, store: route.store, ...(file !== undefined && { file }) });
      },
    );
  const storeFlags = (command: Command): Command =>
    command
      .addOption(
        new Option('--store <url|file>', 'a PostgreSQL URL or a JSON store file').env(
          'CARDS_STORE',
        ),
      )
      .addOption(new Option('--db <file>', 'the JSON store file').env('CARDS_DB'));
  const storeAction =
    (name: 'exportCommand' | 'importCommand' | 'migrateCommand') =>
    async (options: Record<string, unknown>, command: Command): Promise<void> => {
      const commands = await import('./commands/transfer.js');
      const dbGiven = command.getOptionValueSource('db') !== undefined;
      await commands[name]({ ...options, dbGiven, databaseUrl: process.env.DATABASE_URL });
    };
  storeFlags(program.command('db').command('migrate'))
    .description('Create or migrate the PostgreSQL schema (servers also do it on start).')
    .action(storeAction('migrateCommand'));

  profile(program.command('serve'))
    .description('Serve the Cards API from a JSON-file store, for local use.')
    .option('--host <host>', `address to listen on (env CARDS_HOST; default ${DEFAULT_HOST})`)
    .option(
      '--port <port>',
      `port to listen on; 0 picks a free one (env CARDS_PORT; default ${DEFAULT_PORT})`,
    )
    .option('--db <file>', `the JSON store file (env CARDS_DB; default ${DEFAULT_DB})`)
    .option(
      '--service-key <file>',
      'private key that signs every stored card (PEM or base64 DER PKCS#8; env CARDS_SERVICE_KEY_FILE); default: made on first start, kept beside the store',
    )
    .option(
      '--jwt-key <key...>',
      'trust tokens signed by this public key: a file (PEM SPKI, base64 DER SPKI, JWK or JWKS) or inline base64 DER SPKI; repeatable (env CARDS_JWT_KEY, comma-separated); default: a local app key kept beside the store',
    )
    .option(
      '--store <url|file>',
      'the store: a PostgreSQL URL (postgres://USER:PASSWORD@HOST:PORT/DB) or a JSON store file (env CARDS_STORE); default: --db if set, else DATABASE_URL, else ./cards.json',
    )
    .option(
      '--pool-size <n>',
      'PostgreSQL: connections at most; more requests wait, then 503 (env CARDS_POOL_SIZE; default 10)',
    )
    .option(
      '--statement-timeout <ms>',
      'PostgreSQL: longest statement, and longest wait for a connection (env CARDS_STATEMENT_TIMEOUT; default 5000)',
    )
    .addOption(
      new Option(
        '--compat <profile>',
        'wire words: "service" (spec-literal) or "virgil" (the stock clients\' service) (env CARDS_COMPAT; default service)',
      ).choices(['service', 'virgil']),
    )
    .option('--app-id <id>', 'stock-format tokens: require iss "virgil-<id>" (env CARDS_APP_ID)')
    .option('--app-key-id <id>', 'stock-format tokens: require this kid (env CARDS_APP_KEY_ID)')
    .option('--no-cors', 'do not send CORS headers (env CARDS_NO_CORS=1)')
    .option(
      '--max-connections <n>',
      `open connections served at once; a connection above this gets 503 (env CARDS_MAX_CONNECTIONS; default ${DEFAULT_MAX_CONNECTIONS})`,
    )
    .option(
      '--request-timeout <seconds>',
      `time a client has to send a whole request, headers and body (env CARDS_REQUEST_TIMEOUT; default ${DEFAULT_REQUEST_TIMEOUT_SECONDS})`,
    )
    .option(
      '--clock-skew <seconds>',
      'token clock skew allowed: widens exp (default 0 s, as the deployed service) and iat/nbf (default 5 s) (env CARDS_CLOCK_SKEW)',
    )
    .option(
      '--compact-bytes <n>',
      `fold the journal into the store file once it grows past this many bytes, or past the store file if larger (env CARDS_COMPACT_BYTES; default ${DEFAULT_COMPACT_BYTES})`,
    )
    .option(
      '--log-origin <name>',
      'transparency log origin (env CARDS_LOG_ORIGIN; default cards.local/<hex of the log key>)',
    )
    .option(
      '--log-interval <ms>',
      'longest wait before an acknowledged card is integrated into the log (env CARDS_LOG_INTERVAL; default 500)',
    )
    .option('--no-log', 'keep no transparency log (env CARDS_NO_LOG=1)')
    .option(
      '--witness <url>',
      'submit each checkpoint to this tlog-witness (pair with --witness-key); repeatable',
      collect,
    )
    .option(
      '--witness-key <vkey>',
      "the witness's cosignature key (name+id+key); repeatable",
      collect,
    )
    .option('--quiet', 'no per-request log lines (env CARDS_QUIET=1)')
    .option(
      '--memory',
      'keep nothing on disk: cards and keys in memory, gone at exit (env CARDS_MEMORY=1)',
    )
    .option(
      '--seed <file>',
      "create a seed file's cards (`cards seed`'s format) before listening (env CARDS_SEED)",
    )
    .option(
      '--ready-file <file>',
      'once listening, write {url, serviceKey, pid, …} as JSON to FILE (atomically; removed at stop) (env CARDS_READY_FILE)',
    )
    .option('--json', 'print one JSON start-up line on stdout instead of the banner')
    .addOption(
      new Option(
        '--log-format <format>',
        'request log format (env CARDS_LOG_FORMAT; default text)',
      ).choices(['text', 'json']),
    )
    .option(
      '--admin-token <token>',
      'Bearer token of the admin API (/_cards/…, /metrics) and the page (env CARDS_ADMIN_TOKEN); default: made on first start, kept beside the store (cards.admin-token)',
    )
    .option(
      '--no-admin',
      'no admin API, page, /metrics, /openapi.json or /docs (env CARDS_NO_ADMIN=1)',
    )
    .addHelpText(
      'after',
      `
On start it prints "listening on http://HOST:PORT" on a line of its own, the store path with
its card count, the wire profile, and the service public key (base64 DER SPKI, the form
clients pin). Every flag can also come from the environment (CARDS_PORT, CARDS_DB, …; shown
above), and --db and --compat from the config profile: flags > environment > profile > default,
as for every command (\`cards config\` shows each with its source). Switches from the
environment take 1, true or yes (on) and 0, false or no (off).

Routes (each also as /v5/card/… and /card/…): POST /card/v5 (create), GET /card/v5/:id,
POST /card/v5/actions/search, POST /card/v5/actions/revoke, POST /card/v5/actions/revoke/:id,
and GET /health (no token). Requests need "Authorization: Service <token>" (Virgil with
--compat virgil).

The service key and a local app key are made on first start and kept beside the store
(cards.json.service-key.pem, cards.json.app-key.pem; mode 0600). \`cards jwt\` and the other
commands find the app key there through --db, so a local session needs no flags. With
--jwt-key no app key is made. Writes go to a journal beside the store (cards.json.journal)
and are on disk before the response; cards.json.lock keeps a second server off the same
store. A store made by an older version keeps its cards.* names.
SIGINT/SIGTERM stop accepting, finish requests in flight, fold the journal into the store
file and exit 0. A key made inside a git work tree that does not ignore it is warned about.

For tests and scripts: --memory writes no file at all (the app key is then in memory: trust
your own with --jwt-key, or read appKey from --json/--ready-file); --seed FILE creates a seed
file's cards before the port opens; with --port 0, --json prints {url, serviceKey, pid, store,
cards, profile, version, tokens, appKeyFile, seeded} as one line, and --ready-file FILE writes
it to FILE once listening.

The page at / shows the registry (identities, chains, cards with their signatures checked in
the browser, the request journal); /docs the OpenAPI document (/openapi.json). The admin API
(/_cards/…, /metrics) takes "Authorization: Bearer <admin token>" (printed as "admin token:";
kept in cards.admin-token beside the store); on a loopback-only --host neither needs a token.

Examples:
  $ cards serve
  $ cards serve --memory --port 0 --seed fixtures/seed-example.json --json
  $ cards serve --port 0 --db /tmp/cards.json --ready-file /tmp/cards.ready --quiet
  $ CARDS_PORT=9000 cards serve --compat virgil --jwt-key MCowBQYDK2VwAyEA...`,
    )
    .action(async (flags: ServeFlags) => {
      const [{ serve }, { processContext }] = await Promise.all([
        import('./commands/serve.js'),
        import('./context.js'),
      ]);
      await serve(processContext(), flags);
    });

  program
    .command('witness')
    .description('Transparency log witness (C2SP tlog-witness v1.0.0).')
    .command('serve')
    .description('Cosign checkpoints of the given logs after checking their consistency.')
    .requiredOption(
      '--log <vkey...>',
      'trusted log verifier key (name+id+key; the name is its origin); repeatable',
    )
    .addOption(
      new Option('--dir <dir>', 'folder of the witness key and state').default('./cards-witness'),
    )
    .addOption(
      new Option('--name <name>', 'witness key name, used on first start').default(
        'localhost/cards-witness',
      ),
    )
    .addOption(new Option('--host <host>', 'address to listen on').default('127.0.0.1'))
    .addOption(new Option('--port <port>', 'port to listen on; 0 picks a free one').default('7380'))
    .action(async (options: Record<string, unknown>) => {
      const { witnessServe } = await import('./commands/witness.js');
      await witnessServe(options);
    });

  return program;
}
