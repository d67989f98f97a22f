/**
 * `cards serve`: a Cards Service on a JSON store, PostgreSQL or memory. Each flag is declared
 * once here, its default the server's own (src/server/defaults.ts); a new serve flag is one
 * more line below and its use in settings.ts.
 */
import { Option } from 'commander';
import {
  DEFAULT_CLOCK_SKEW_SECONDS,
  DEFAULT_COMPACT_BYTES,
  DEFAULT_HOST,
  DEFAULT_JOURNAL_SIZE,
  DEFAULT_LOG_INTERVAL_MS,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_POOL_SIZE,
  DEFAULT_PORT,
  DEFAULT_PYTHIA_THROTTLE,
  DEFAULT_PYTHIA_VERSIONS,
  DEFAULT_REQUEST_TIMEOUT_SECONDS,
  DEFAULT_STATEMENT_TIMEOUT_MS,
  loopbackAddress,
} from '../../../server/defaults.js';
import { declare } from '../../command.js';
import { compatFlag, dbFlag, fromProfile, integer, repeatable, storeFlag } from '../../flags.js';
import type { ServeFlags } from './settings.js';

export default declare({
  name: 'serve',
  summary: 'Serve the Cards API from a JSON-file store, for local use.',
  flags: [
    // The profile's url, when it is a loopback http URL: `cards init` and `cards serve` agree.
    fromProfile(
      new Option(
        '--host <host>',
        "address to listen on; a profile's loopback http url gives it too",
      )
        .env('CARDS_HOST')
        .default(DEFAULT_HOST),
      'url',
      (url) => loopbackAddress(url)?.host,
    ),
    fromProfile(
      new Option(
        '--port <port>',
        "port to listen on, 0 picks a free one; a profile's loopback http url gives it too",
      )
        .env('CARDS_PORT')
        .default(DEFAULT_PORT)
        .argParser(integer(0, 65535)),
      'url',
      (url) => {
        const address = loopbackAddress(url);
        return address && String(address.port);
      },
    ),
    dbFlag(),
    storeFlag(),
    new Option(
      '--service-key <file>',
      'private key that signs every stored card (PEM or base64 DER PKCS#8); default: made on first start, kept beside the store',
    ).env('CARDS_SERVICE_KEY_FILE'),
    new Option(
      '--jwt-key <key...>',
      'trust tokens signed by this public key: a file (PEM SPKI, base64 DER SPKI, JWK or JWKS) or inline base64 DER SPKI; repeatable (the variable: comma-separated); default: a local app key kept beside the store',
    ).env('CARDS_JWT_KEY'),
    new Option('--pool-size <n>', 'PostgreSQL: connections at most; more requests wait, then 503')
      .env('CARDS_POOL_SIZE')
      .default(DEFAULT_POOL_SIZE)
      .argParser(integer(1, 1000)),
    new Option(
      '--statement-timeout <ms>',
      'PostgreSQL: longest statement, and longest wait for a connection',
    )
      .env('CARDS_STATEMENT_TIMEOUT')
      .default(DEFAULT_STATEMENT_TIMEOUT_MS)
      .argParser(integer(10, 3_600_000)),
    compatFlag(),
    new Option('--app-id <id>', 'stock-format tokens: require iss "virgil-<id>"').env(
      'CARDS_APP_ID',
    ),
    new Option('--app-key-id <id>', 'stock-format tokens: require this kid').env(
      'CARDS_APP_KEY_ID',
    ),
    new Option('--no-cors', 'do not send CORS headers').env('CARDS_NO_CORS'),
    new Option(
      '--max-connections <n>',
      'open connections served at once; a connection above this gets 503',
    )
      .env('CARDS_MAX_CONNECTIONS')
      .default(DEFAULT_MAX_CONNECTIONS)
      .argParser(integer(1, 1_000_000)),
    new Option(
      '--request-timeout <seconds>',
      'time a client has to send a whole request, headers and body',
    )
      .env('CARDS_REQUEST_TIMEOUT')
      .default(DEFAULT_REQUEST_TIMEOUT_SECONDS)
      .argParser(integer(1, 3600)),
    new Option(
      '--clock-skew <seconds>',
      'token clock skew allowed: widens exp (0 s by default, as the deployed service) and iat/nbf (5 s by default)',
    )
      .env('CARDS_CLOCK_SKEW')
      .default(DEFAULT_CLOCK_SKEW_SECONDS)
      .argParser(integer(0, 86_400)),
    new Option(
      '--compact-bytes <n>',
      'fold the journal into the store file once it grows past this many bytes, or past the store file if larger',
    )
      .env('CARDS_COMPACT_BYTES')
      .default(DEFAULT_COMPACT_BYTES)
      .argParser(integer(1, 2 ** 40)),
    new Option(
      '--log-origin <name>',
      'transparency log origin (default cards.local/<hex of the log key>)',
    ).env('CARDS_LOG_ORIGIN'),
    new Option(
      '--log-interval <ms>',
      'longest wait before an acknowledged card is integrated into the log',
    )
      .env('CARDS_LOG_INTERVAL')
      .default(DEFAULT_LOG_INTERVAL_MS)
      .argParser(integer(1, 60_000)),
    new Option('--no-log', 'keep no transparency log').env('CARDS_NO_LOG'),
    // For the one start that needs it, so a flag alone: no environment variable or profile.
    new Option(
      '--new-log',
      'begin a new transparency log (origin <origin>/reset-N) when the stored one is missing or behind what its key signed (LOG_ROLLED_BACK)',
    ),
    new Option(
      '--witness <url>',
      'submit each checkpoint to this tlog-witness (pair with --witness-key); repeatable',
    ).argParser(repeatable),
    new Option(
      '--witness-key <vkey>',
      "the witness's cosignature key (name+id+key); repeatable",
    ).argParser(repeatable),
    new Option('--quiet', 'no per-request log lines').env('CARDS_QUIET'),
    new Option('--log-format <format>', 'request log format')
      .choices(['text', 'json'])
      .env('CARDS_LOG_FORMAT')
      .default('text'),
    new Option('--memory', 'keep nothing on disk: cards and keys in memory, gone at exit').env(
      'CARDS_MEMORY',
    ),
    new Option(
      '--seed <file>',
      "create a seed file's cards (`cards seed`'s format) before listening",
    ).env('CARDS_SEED'),
    new Option('--journal-size <n>', 'requests the request journal keeps (`cards requests`)')
      .env('CARDS_JOURNAL_SIZE')
      .default(DEFAULT_JOURNAL_SIZE)
      .argParser(integer(1, 1_000_000)),
    new Option(
      '--import <file>',
      'start from a dump (what --export-on-exit writes: the keys and the cards); the store must be new',
    ).env('CARDS_IMPORT'),
    new Option(
      '--export-on-exit <file>',
      'on SIGINT/SIGTERM write a dump: the keys and every card (mode 0600: it holds private keys)',
    ).env('CARDS_EXPORT_ON_EXIT'),
    new Option(
      '--require-admin-token',
      'ask for the admin token on loopback too (behind a reverse proxy on this machine, loopback is everyone the proxy serves)',
    ).env('CARDS_REQUIRE_ADMIN_TOKEN'),
    new Option(
      '--accept-any-token',
      'development only, loopback only: accept any well-formed token for its sub without checking its signature',
    ).env('CARDS_ACCEPT_ANY_TOKEN'),
    new Option(
      '--faults <file>',
      'fault rules in force from the start: a JSON file of rules as `cards faults add` makes them (docs/test-double.md)',
    ).env('CARDS_FAULTS'),
    new Option(
      '--ready-file <file>',
      'once listening, write {url, serviceKey, pid, …} as JSON to FILE (atomically; removed at stop)',
    ).env('CARDS_READY_FILE'),
    new Option(
      '--admin-token <token>',
      'Bearer token of the admin API (/_cards/…, /metrics) and the page; default: made on first start, kept beside the store (cards.admin-token)',
    ).env('CARDS_ADMIN_TOKEN'),
    new Option('--no-admin', 'no admin API, page, /metrics, /openapi.json or /docs').env(
      'CARDS_NO_ADMIN',
    ),
    new Option(
      '--pythia-versions <n>',
      'Pythia password key versions kept (1 to N); the banner prints each proof key PK.<v>.… and each update token UT.<a>.<b>.…',
    )
      .env('CARDS_PYTHIA_VERSIONS')
      .default(DEFAULT_PYTHIA_VERSIONS)
      .argParser(integer(1, 100)),
    new Option(
      '--pythia-throttle <rate>',
      'Pythia brainkeys per identity: off, or <burst>/<ms> (a burst, then one more every ms); over it: 60007, as the cloud answers',
    )
      .env('CARDS_PYTHIA_THROTTLE')
      .default(DEFAULT_PYTHIA_THROTTLE),
    new Option(
      '--pythia-threads <n>',
      'worker threads computing Pythia pairings (default: one fewer than the CPUs, at least 1)',
    )
      .env('CARDS_PYTHIA_THREADS')
      .argParser(integer(1, 256)),
  ],
  help: `On start it prints "listening on http://HOST:PORT" on a line of its own, the store path with
its card count, the wire profile, and the service public key (base64 DER SPKI, the form
clients pin); with --json, one JSON start-up line instead. Every flag can also come from the
environment (shown above), and --db and --compat from the config profile: flags > environment
> profile > default, as for every command (\`cards config\` shows each with its source).
Switches from the environment take 1, true or yes (on) and 0, false or no (off).

Routes (each also as /v5/card/… and /card/…): POST /card/v5 (create), GET /card/v5/:id,
POST /card/v5/actions/search, POST /card/v5/actions/revoke, POST /card/v5/actions/revoke/:id,
and GET /health (no token); e3kit's Keyknox (GET/PUT /keyknox/v1, POST /keyknox/v1/reset,
POST /keyknox/v2/push|pull|keys|reset) and Pythia (POST /pythia/v1/brainkey, /pythia/v1/password)
with the same token (docs/e3kit.md). Requests need "Authorization: Service <token>" (Virgil with
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
kept in cards.admin-token beside the store); on a loopback-only --host neither needs a token.`,
  examples: [
    'cards serve',
    'cards serve --memory --port 0 --seed fixtures/seed-example.json --json',
    'cards serve --port 0 --db /tmp/cards.json --ready-file /tmp/cards.ready --quiet',
    'CARDS_PORT=9000 cards serve --compat virgil --jwt-key MCowBQYDK2VwAyEA...',
  ],
  run: async (ctx, options: ServeFlags) => (await import('./serve.js')).serve(ctx, options),
  hints: {
    IMPORT_INVALID:
      'fix that line of the --import dump (what --export-on-exit wrote) and start the server again with it',
  },
});
