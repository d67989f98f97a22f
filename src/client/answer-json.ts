/**
 * The JSON of a service's answer, read as a client can use it: no answer of a Cards service
 * (docs/http.md) nests objects and arrays more than a few levels, so one nested past
 * ANSWER_DEPTH_MAX is not a service's answer. JSON.parse reads any depth, but every reader of
 * the value after it (a text view escaping each string, JSON.stringify under --json) recurses,
 * and a server's `[[[…]]]` 100,000 deep would overflow the stack there, far from any check.
 */

/** The deepest nesting of objects and arrays an answer may have. */
export const ANSWER_DEPTH_MAX = 64;

/** Whether `text` opens more than ANSWER_DEPTH_MAX objects and arrays inside each other. */
export function nestsTooDeep(text: string): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > ANSWER_DEPTH_MAX) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** The value of `text`, or undefined when it is not JSON or nests past ANSWER_DEPTH_MAX. */
export function readAnswerJson(text: string): unknown {
  if (nestsTooDeep(text)) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
