/**
 * The identity a token carries must be text a card can have (docs/http.md, "Text"): both token
 * formats check it, so a token for "x\uFFFD" and one for "x\uD800" never name one identity on an
 * engine that stores text as UTF-8. Apart from tokens.ts and stock-token.ts so each can use it.
 */
import { isPortableText } from '../core/encoding.js';
import { CardsError } from '../core/errors.js';

/** TOKEN_CLAIMS unless `identity` is well-formed Unicode without U+0000. */
export function checkIdentityText(identity: string): void {
  if (!isPortableText(identity))
    throw new CardsError(
      'TOKEN_CLAIMS',
      'Token "sub" (the identity) must be well-formed Unicode without U+0000.',
    );
}
