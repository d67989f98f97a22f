/**
 * The Keyknox dates (../keyknox.ts `KeyknoxDates`) in the PostgreSQL engine's rows: timestamptz
 * columns `created_at` and `updated_at` (migration 6, sql.ts), null where a record has none,
 * written from and read back to milliseconds since the epoch exactly.
 */
import type { KeyknoxDates } from '../keyknox.js';

/** The dates as ms since the epoch (null where none), in a row's `created`/`updated`. */
export const DATES = `(extract(epoch FROM created_at) * 1000)::bigint AS created,
  (extract(epoch FROM updated_at) * 1000)::bigint AS updated`;

/** What DATES reads: bigint columns come as text. */
export interface DateColumns {
  created: string | null;
  updated: string | null;
}

export const datesOf = (row: DateColumns): KeyknoxDates => ({
  ...(row.created !== null && { created: Number(row.created) }),
  ...(row.updated !== null && { updated: Number(row.updated) }),
});

/** A date as a timestamptz parameter: ISO 8601 keeps its milliseconds exactly. */
const timestamp = (ms: number | undefined): string | null =>
  ms === undefined ? null : new Date(ms).toISOString();

/** `created_at`, `updated_at` parameters of a write. */
export const dateValues = (r: KeyknoxDates): (string | null)[] => [
  timestamp(r.created),
  timestamp(r.updated),
];
