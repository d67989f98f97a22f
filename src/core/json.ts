/**
 * The one guard every reader of parsed JSON starts with (card bodies, request bodies, store
 * records, seed files, token segments): a JSON object, not null and not an array. Pure.
 */
export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
