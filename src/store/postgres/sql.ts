/**
 * Every SQL statement of the PostgreSQL engine, and its numbered migrations.
 *
 * Kept to what Postgres-wire distributed databases (CockroachDB, YugabyteDB) also run, so that a
 * registry that outgrows one PostgreSQL can move (docs/scaling.md): text primary keys, no
 * advisory locks, no LISTEN/NOTIFY, no triggers or stored procedures; serialization failures
 * (SQLSTATE 40001) are retried by the caller.
 *
 * Schema (migration 1):
 * - cards: one row per card. `seq` is the card's 0-based position in insertion order, dense and
 *   in commit order: it comes from the one counter row (cards_counter), locked first by every
 *   transaction that inserts and updated in the same statement as the insert, so two inserts
 *   never share or skip a number. `chain_id` is the id
 *   of the first card of the card's chain and `chain_seq` that card's seq, copied from the
 *   previous card, so a chain and an identity's chains are index hits. `wire` is the wire
 *   object's JSON text (spec 2.1) exactly as the registry made it: export is byte-identical.
 *   Unique `id` (primary key) and unique `previous_card_id` are what make racing inserts have
 *   one winner, on any number of servers (spec 2.2: a chain never branches).
 * - cards_keys: the secrets the servers keep (keys, the admin token), by name.
 * - cards_log_tiles, cards_log_state (migration 3): the transparency log's tiles and entry
 *   bundles by tlog-tiles path, and its one state row: the last signed checkpoint (null for a
 *   log not begun yet) and the epoch (new logs begun by resets). A server extends the log in
 *   one transaction that locks the state row (FOR UPDATE), so several servers share one tree.
 * - cards_log_signed (migration 4): one row, the last checkpoint the log key signed of each log
 *   (log-epochs.ts keptRecord), written in the transaction that writes it to cards_log_state. Apart from the log's tables, so that dropping
 *   or restoring them is seen (log-writer.ts refuses a log behind it rather than sign a fork).
 * - cards_keyknox_v1, cards_keyknox_v2 (migration 5): e3kit's Keyknox blobs and entries
 *   (keyknox-store.ts). Every write is one statement conditioned on the revision it replaces,
 *   so of several servers' racing writes from one state exactly one lands.
 *   Migration 6: `created_at` beside `updated_at`, both the dates the rules set (store/keyknox.ts
 *   `KeyknoxDates`), null where a record has none (a row stored before migration 6 keeps the
 *   `updated_at` its last write set and has no `created_at`); and indexes in code-point order on
 *   each table's key, the ranges of the admin listing's pages.
 * - cards_rate_buckets (migration 7): the token buckets of Pythia's throttle (rate-buckets.ts),
 *   one row per caller and operation, keyed by a SHA-256 of the caller's key (an identity may be
 *   longer than an index row holds), so every server counts one caller's requests together.
 * - cards_migrations: the migrations applied; its unique id is what lets several servers start
 *   at once (the second one's INSERT waits for the first one's transaction, then fails and
 *   finds the migration done).
 */

export interface Migration {
  readonly id: number;
  readonly name: string;
  readonly statements: readonly string[];
}

export const MIGRATIONS: readonly Migration[] = [
  {
    id: 1,
    name: 'cards, counter and keys',
    statements: [
      `CREATE TABLE cards (
        id text PRIMARY KEY,
        seq bigint NOT NULL UNIQUE,
        identity text NOT NULL,
        previous_card_id text UNIQUE REFERENCES cards (id),
        revoking boolean NOT NULL,
        chain_id text NOT NULL,
        chain_seq bigint NOT NULL,
        wire text NOT NULL
      )`,
      `CREATE INDEX cards_by_identity ON cards (identity, chain_seq, seq)`,
      `CREATE INDEX cards_by_chain ON cards (chain_id, seq)`,
      `CREATE TABLE cards_counter (id integer PRIMARY KEY, next_seq bigint NOT NULL)`,
      `INSERT INTO cards_counter (id, next_seq) VALUES (1, 0)`,
      `CREATE TABLE cards_keys (
        name text PRIMARY KEY,
        pem text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`,
    ],
  },
  {
    id: 2,
    name: 'identities in code-point order (admin listing)',
    statements: [`CREATE INDEX cards_by_identity_c ON cards ((identity COLLATE "C"))`],
  },
  {
    id: 3,
    name: 'transparency log tiles and checkpoint',
    statements: [
      `CREATE TABLE cards_log_tiles (path text PRIMARY KEY, data bytea NOT NULL)`,
      `CREATE TABLE cards_log_state (
        id integer PRIMARY KEY,
        checkpoint text,
        epoch integer NOT NULL
      )`,
      `INSERT INTO cards_log_state (id, checkpoint, epoch) VALUES (1, NULL, 0)`,
    ],
  },
  {
    id: 4,
    name: 'the last checkpoint the log key signed',
    statements: [
      `CREATE TABLE cards_log_signed (id integer PRIMARY KEY, checkpoint text NOT NULL)`,
    ],
  },
  {
    id: 5,
    name: 'Keyknox v1 blobs and v2 entries',
    statements: [
      `CREATE TABLE cards_keyknox_v1 (
        app text NOT NULL,
        identity text NOT NULL,
        meta bytea NOT NULL,
        value bytea NOT NULL,
        version integer NOT NULL,
        hash text NOT NULL,
        revision bigint NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (app, identity)
      )`,
      `CREATE TABLE cards_keyknox_v2 (
        app text NOT NULL,
        owner text NOT NULL,
        root text NOT NULL,
        path text NOT NULL,
        key text NOT NULL,
        copies jsonb NOT NULL,
        readers jsonb NOT NULL,
        hash text NOT NULL,
        revision bigint NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (app, owner, root, path, key)
      )`,
    ],
  },
  {
    id: 6,
    name: 'Keyknox dates and code-point order',
    statements: [
      `ALTER TABLE cards_keyknox_v1 ADD COLUMN created_at timestamptz,
        ALTER COLUMN updated_at DROP NOT NULL, ALTER COLUMN updated_at DROP DEFAULT`,
      `ALTER TABLE cards_keyknox_v2 ADD COLUMN created_at timestamptz,
        ALTER COLUMN updated_at DROP NOT NULL, ALTER COLUMN updated_at DROP DEFAULT`,
      `CREATE INDEX cards_keyknox_v1_c ON cards_keyknox_v1 (app COLLATE "C", identity COLLATE "C")`,
      `CREATE INDEX cards_keyknox_v2_c ON cards_keyknox_v2
        (app COLLATE "C", owner COLLATE "C", root COLLATE "C", path COLLATE "C", key COLLATE "C")`,
    ],
  },
  {
    id: 7,
    name: 'rate buckets shared by the servers',
    statements: [
      `CREATE TABLE cards_rate_buckets (
        key text PRIMARY KEY,
        tokens double precision NOT NULL,
        at_ms bigint NOT NULL,
        granted boolean NOT NULL
      )`,
    ],
  },
];

/** The newest schema this code knows. */
export const SCHEMA_VERSION = Math.max(...MIGRATIONS.map((m) => m.id));

export const CREATE_MIGRATIONS = `CREATE TABLE IF NOT EXISTS cards_migrations (
  id integer PRIMARY KEY,
  name text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
)`;

export const APPLIED_VERSION = `SELECT COALESCE(MAX(id), 0) AS version FROM cards_migrations`;

export const RECORD_MIGRATION = `INSERT INTO cards_migrations (id, name) VALUES ($1, $2)`;

/** The columns every card query reads (the card, its place in its chain). */
const COLUMNS = `c.id, c.seq, c.identity, c.previous_card_id, c.revoking, c.chain_id, c.wire`;

/** With the card's successor and the revoking card ending its chain, if any. */
const PLACE = `${COLUMNS},
  (SELECT s.id FROM cards s WHERE s.previous_card_id = c.id) AS successor,
  (SELECT r.id FROM cards r WHERE r.chain_id = c.chain_id AND r.revoking) AS revoked_by`;

/**
 * A statement run often enough to be prepared once per connection (node-postgres `name`): the
 * server parses and plans it once, not on every request.
 */
export interface Prepared {
  readonly name: string;
  readonly text: string;
}

/** The cards with these ids ($1, an array: lookups asked together share it). */
export const GET_CARDS: Prepared = {
  name: 'cards_get',
  text: `SELECT ${PLACE} FROM cards c WHERE c.id = ANY($1::text[])`,
};

export const LAST_OF_CHAIN: Prepared = {
  name: 'cards_last_of_chain',
  text: `SELECT ${PLACE} FROM cards c
  WHERE c.chain_id = (SELECT x.chain_id FROM cards x WHERE x.id = $1)
  ORDER BY c.seq DESC LIMIT 1`,
};

/** Every card of the identities asked, each chain in order, chains by their first card. */
export const CHAINS_OF: Prepared = {
  name: 'cards_chains_of',
  text: `SELECT ${COLUMNS} FROM cards c
  WHERE c.identity = ANY($1::text[]) ORDER BY c.chain_seq, c.seq`,
};

/** Where the card `id` stands in the registry, if it is stored. */
export const SEQ_OF = `SELECT seq FROM cards WHERE id = $1`;

export const COUNT = `SELECT next_seq FROM cards_counter WHERE id = 1`;

/** Cards with their places after position $1, in insertion order (the admin listing). */
export const LIST_CARDS = `SELECT ${PLACE} FROM cards c WHERE c.seq > $1 ORDER BY c.seq LIMIT $2`;

/**
 * Cards whose id starts with $1 (lowercase hex), after id $2 or from the first, in id order, at
 * most $3. The range on the primary key keeps it an index scan; hex digits sort the same in
 * every collation, and none of them sorts after "g".
 */
export const CARDS_WITH_ID_PREFIX = `SELECT ${PLACE} FROM cards c
  WHERE c.id >= $1 AND c.id < $1 || 'g' AND left(c.id, length($1)) = $1
    AND ($2::text IS NULL OR c.id > $2)
  ORDER BY c.id LIMIT $3`;

/**
 * Identities in code-point order (as JavaScript compares strings) with their counts: $1 a
 * prefix or null, $2 the last identity of the previous page or null, $3 the page size.
 */
export const LIST_IDENTITIES = `WITH chains AS (
    SELECT c.identity, c.chain_id, count(*) AS cards, bool_or(c.revoking) AS revoked
    FROM cards c
    WHERE ($1::text IS NULL OR left(c.identity, length($1)) = $1)
      AND ($2::text IS NULL OR c.identity COLLATE "C" > $2::text COLLATE "C")
    GROUP BY c.identity, c.chain_id)
  SELECT identity, sum(cards)::bigint AS cards,
    count(*) FILTER (WHERE NOT revoked) AS live_chains,
    count(*) FILTER (WHERE revoked) AS revoked_chains
  FROM chains GROUP BY identity ORDER BY identity COLLATE "C" LIMIT $3`;

/**
 * Empties the registry (the admin reset); keys and migrations stay. The transparency log is not
 * rewound: its tiles go and a new log begins (the next epoch, when the old one had begun).
 */
export const RESET = [
  // The log's lock first, as its writer takes it before reading cards, then the counter's, as
  // inserts take it before reading cards: no deadlock.
  `SELECT checkpoint FROM cards_log_state WHERE id = 1 FOR UPDATE`,
  `SELECT next_seq FROM cards_counter WHERE id = 1 FOR UPDATE`,
  `TRUNCATE cards`,
  `UPDATE cards_counter SET next_seq = 0 WHERE id = 1`,
  `TRUNCATE cards_log_tiles`,
  `UPDATE cards_log_state SET checkpoint = NULL,
    epoch = CASE WHEN checkpoint IS NULL THEN epoch ELSE epoch + 1 END WHERE id = 1`,
];

/** The transparency log's state row: $ none. FOR UPDATE: the one writer's lock. */
export const LOG_STATE = `SELECT checkpoint, epoch FROM cards_log_state WHERE id = 1`;
export const LOG_STATE_LOCKED = `${LOG_STATE} FOR UPDATE`;
/** A new checkpoint $1 of epoch $2, and the record $3 of the last ones signed, in one statement. */
export const LOG_SET_CHECKPOINT = `WITH kept AS (
    INSERT INTO cards_log_signed (id, checkpoint) VALUES (1, $3)
    ON CONFLICT (id) DO UPDATE SET checkpoint = EXCLUDED.checkpoint)
  UPDATE cards_log_state SET checkpoint = $1, epoch = $2 WHERE id = 1`;
export const LOG_LAST_SIGNED = `SELECT checkpoint FROM cards_log_signed WHERE id = 1`;
/** Replaces checkpoint $1 with $2 (cosignatures added) unless another writer moved it. */
export const LOG_REPLACE_CHECKPOINT = `UPDATE cards_log_state SET checkpoint = $2
  WHERE id = 1 AND checkpoint = $1`;
export const LOG_TILE = `SELECT data FROM cards_log_tiles WHERE path = $1`;
/**
 * The tile at path $1 while the stored log is of epoch $2, in one statement (one snapshot): a
 * reset empties the tiles and moves the epoch in one transaction, so a tile found with the epoch
 * is that log's.
 */
export const LOG_TILE_OF_EPOCH = `SELECT t.data FROM cards_log_tiles t
  JOIN cards_log_state s ON s.id = 1 AND s.epoch = $2 WHERE t.path = $1`;
/** Tiles by path ($1 paths, $2 their bytes): a partial tile's path is written once. */
export const LOG_PUT_TILES = `INSERT INTO cards_log_tiles (path, data)
  SELECT * FROM unnest($1::text[], $2::bytea[])
  ON CONFLICT (path) DO UPDATE SET data = EXCLUDED.data`;
export const LOG_DELETE_TILES = `DELETE FROM cards_log_tiles WHERE path = ANY($1::text[])`;
export const LOG_CLEAR_TILES = `DELETE FROM cards_log_tiles`;

/** Cards in insertion order from position $1 (keyset paging: export, the transparency log). */
export const SCAN = `SELECT ${COLUMNS} FROM cards c WHERE c.seq >= $1 ORDER BY c.seq LIMIT $2`;

/**
 * The start of a batch of inserts (batch.ts), sent as one simple query: the counter row,
 * locked until COMMIT. Every writer on every server takes it first, so inserts are serialized
 * there: seq order is commit order, and what the batch reads next cannot change before it
 * commits (the chain rules are decided on it, in the same transaction).
 */
export const BEGIN_LOCK_COUNTER = `BEGIN; SELECT next_seq FROM cards_counter WHERE id = 1 FOR UPDATE`;

/** The chain facts of the stored cards among $1 (ids and previous ids of a batch). */
export const FACTS_OF: Prepared = {
  name: 'cards_facts_of',
  text: `SELECT c.id, c.identity, c.revoking, c.chain_id, c.chain_seq,
    EXISTS (SELECT 1 FROM cards s WHERE s.previous_card_id = c.id) AS superseded
  FROM cards c WHERE c.id = ANY($1::text[])`,
};

/**
 * The cards a batch lets in, as parallel arrays ($1-$8, seq given), and the counter ($9), in one
 * statement. The unique id and previous_card_id still refuse a duplicate or a second successor.
 */
export const APPEND_BATCH: Prepared = {
  name: 'cards_append_batch',
  text: `WITH added AS (
    INSERT INTO cards (id, seq, identity, previous_card_id, revoking, chain_id, chain_seq, wire)
    SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::boolean[],
      $6::text[], $7::bigint[], $8::text[])
    RETURNING seq)
  UPDATE cards_counter SET next_seq = $9 WHERE id = 1`,
};

/**
 * The database's clock in ms since the epoch: one clock for every server's buckets, and one
 * instant for every expression of a statement (statement_timestamp), so `granted` and `tokens`
 * are decided at the same time.
 */
const NOW_MS = `(extract(epoch FROM statement_timestamp()) * 1000)::bigint`;
/** The bucket's tokens now: what it held plus one per `refillMs` ($3) since, at most `burst` ($2). */
const LEVEL = `LEAST($2::float8, b.tokens + GREATEST(0, ${NOW_MS} - b.at_ms)::float8 / $3::float8)`;

/**
 * Takes a token from bucket $1 (burst $2, one more every $3 ms) in one statement, so servers
 * taking from one bucket at once are serialized on its row: `granted` says whether one was
 * there (SET reads the row as it was). A new bucket starts full, less the token taken.
 * A row stamped later than the statement's instant by less than one refill is a statement that
 * waited for another's lock: the later stamp is kept, so no interval is counted twice. By more,
 * the clock went back: the bucket is stamped now, so it refills from now on rather than once
 * the clock is back at its stamp.
 */
export const RATE_TAKE: Prepared = {
  name: 'cards_rate_take',
  text: `INSERT INTO cards_rate_buckets AS b (key, tokens, at_ms, granted)
    VALUES ($1, $2::float8 - 1, ${NOW_MS}, true)
    ON CONFLICT (key) DO UPDATE SET
      granted = ${LEVEL} >= 1,
      tokens = CASE WHEN ${LEVEL} >= 1 THEN ${LEVEL} - 1 ELSE ${LEVEL} END,
      at_ms = CASE WHEN (b.at_ms - ${NOW_MS})::float8 > $3::float8 THEN ${NOW_MS}
        ELSE GREATEST(b.at_ms, ${NOW_MS}) END
    RETURNING granted`,
};

/** Gives a token back to bucket $1 (at most burst $2). */
export const RATE_GIVE_BACK = `UPDATE cards_rate_buckets SET tokens = LEAST($2::float8, tokens + 1)
  WHERE key = $1`;

/** Drops buckets idle for $1 ms or more: full again, as a bucket never made is. */
export const RATE_PRUNE = `DELETE FROM cards_rate_buckets WHERE at_ms < ${NOW_MS} - $1::bigint`;

export const GET_KEY = `SELECT pem FROM cards_keys WHERE name = $1`;

export const PUT_KEY = `INSERT INTO cards_keys (name, pem) VALUES ($1, $2)
  ON CONFLICT (name) DO NOTHING`;
