/**
 * The client's defaults, one place each: the client uses them, and the CLI's flag declarations
 * show them as their `.default()` (src/cli/flags.ts), so `--help`, `cards config` and the
 * client cannot drift apart. Constants only: `cards --help` loads this file.
 */

/** A request's whole deadline, connection to last byte (`--timeout`, CARDS_TIMEOUT). */
export const DEFAULT_TIMEOUT_MS = 30_000;
