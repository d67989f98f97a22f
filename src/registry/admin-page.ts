/**
 * An admin listing's page (cards, identities, Keyknox) from the rows its store page returned:
 * bounded in rows by the query's `limit` and in bytes by LIMITS.adminPageBytes, and always
 * holding the first row, so the answer is bounded however large the stored rows are and a walk
 * by next_cursor still reaches every row once. The one place that decides what a page holds and
 * where the next one starts. Knows nothing of HTTP or of the store.
 */
import { LIMITS } from '../core/limits.js';

export interface Page<T> {
  readonly items: T[];
  /** Pass back as `cursor` for the next page; null on the last page. */
  readonly next: string | null;
}

/**
 * The first rows of `rows` whose UTF-8 JSON list (brackets and commas included, as the answer
 * sends it) holds at most `budget` bytes, and the first row in any case.
 */
function rowsWithin<T>(rows: readonly T[], budget: number = LIMITS.adminPageBytes): T[] {
  let bytes = 1; // '[' and, after the last row, ']' in place of its comma
  for (const [i, row] of rows.entries()) {
    bytes += Buffer.byteLength(JSON.stringify(row)) + 1;
    if (bytes > budget && i > 0) return rows.slice(0, i);
  }
  return [...rows];
}

/**
 * The page of `rows`, the store's answer for at most `limit` rows: those within the byte budget,
 * and the cursor after the last of them (`cursorOf`) when rows were left out or the store may
 * hold more (a full page).
 */
export function pageOf<T>(
  rows: readonly T[],
  limit: number,
  cursorOf: (row: T) => string,
): Page<T> {
  const items = rowsWithin(rows);
  const last = items.at(-1);
  const more = items.length < rows.length || rows.length === limit;
  return { items, next: last !== undefined && more ? cursorOf(last) : null };
}
