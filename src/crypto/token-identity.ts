/**
 * The identity (and a stock token's app id) a token carries must be text a card can have
 * (docs/http.md, "Text"): every token format checks it, so a token for "x\uFFFD" and one for
 * "x\uD800" never name one identity on an engine that stores text as UTF-8. Apart from tokens.ts
 * and stock-token.ts so each can use it.
 */
import { isPortableText } from '../core/encoding.js';
import { CardsError } from '../core/errors.js';

/**
 * TOKEN_CLAIMS unless a stock token's app id is text as well: e3kit's Keyknox entries and
 * Pythia keys are kept per app, so "x\uFFFD" and "x\uD800" must not name one app either.
 */
export function checkAppText(app: string): void {
  if (!isPortableText(app))
    throw new CardsError(
      'TOKEN_CLAIMS',
      'Token "iss" (the app id) must be well-formed Unicode without U+0000.',
    );
}

/**
 * TEXT_NOT_UNICODE (400) unless `identity` is well-formed Unicode without U+0000: the rule of
 * every identity (core/encoding.ts isPortableText), the one a card's snapshot is refused by, so
 * a create for such an identity gets the same 400 whichever it is checked on first. Checked once
 * the token is otherwise valid (signature, claims, times): a token that is not is 401 as ever.
 */
export function checkIdentityText(identity: string): void {
  if (!isPortableText(identity))
    throw new CardsError(
      'TEXT_NOT_UNICODE',
      'Text is incorrect. It must be well-formed Unicode without U+0000: the token\'s "sub" (the identity) is not.',
    );
}
