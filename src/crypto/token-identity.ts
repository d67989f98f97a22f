/**
 * The identity (and a stock token's app id) a token carries must be text a card can have
 * (docs/http.md, "Text"): both token formats check it, so a token for "x\uFFFD" and one for
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

/** TOKEN_CLAIMS unless `identity` is well-formed Unicode without U+0000. */
export function checkIdentityText(identity: string): void {
  if (!isPortableText(identity))
    throw new CardsError(
      'TOKEN_CLAIMS',
      'Token "sub" (the identity) must be well-formed Unicode without U+0000.',
    );
}
