/**
 * A registry moved by export and import keeps its cards' service signatures (spec 2.3): a
 * server with a key of its own stores them, but nobody can verify them with its key. `cards
 * import` watches its dump stream past for the first card line (a stored record, `{"id":…`;
 * Keyknox lines are skipped without being kept) and afterwards checks that card's service
 * signature with the key the server announces, so the import says so at once rather than
 * `cards inspect` failing on every card later (docs/serve.md, "Moving a registry and its
 * service key").
 */
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { decodeBase64 } from '../../../core/encoding.js';
import { LIMITS } from '../../../core/limits.js';
import { parseSnapshot } from '../../../core/snapshot.js';
import { isRawCard, parseSignatures } from '../../../core/card.js';
import { parsePublicKey } from '../../../crypto/keys.js';
import { verifyCardSignatures } from '../../../crypto/verify-card.js';

/** The first card line of `stream` once it has passed, or undefined (none, or too long). */
export function watchFirstCard(stream: Readable): () => string | undefined {
  const decoder = new StringDecoder('utf8');
  let line = '';
  let skipping = false;
  let found: string | undefined;
  const onData = (chunk: Buffer | string): void => {
    let text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
    while (text.length > 0) {
      const newline = text.indexOf('\n');
      const part = newline === -1 ? text : text.slice(0, newline);
      text = newline === -1 ? '' : text.slice(newline + 1);
      if (!skipping) {
        line += part;
        // Only a card line is kept, and only up to the longest line an import takes.
        const head = line.trimStart();
        if (
          (head.length >= 6 && !head.startsWith('{"id":')) ||
          line.length > LIMITS.importLineMax
        ) {
          skipping = true;
          line = '';
        }
      }
      if (newline === -1) return;
      if (!skipping && line.trim() !== '') {
        found = line;
        stream.off('data', onData);
        return;
      }
      skipping = false;
      line = '';
    }
  };
  stream.on('data', onData);
  return () => found;
}

/**
 * Whether the card `line` holds carries a `signer` signature that does not verify with
 * `serviceKey` (base64 SPKI, as /_cards/info gives it); false when it cannot tell.
 */
export async function signedElsewhere(
  line: string,
  signer: string,
  serviceKey: string,
): Promise<boolean> {
  try {
    const record: unknown = JSON.parse(line);
    if (!isRawCard(record)) return false;
    const bytes = decodeBase64(record.content_snapshot);
    if (!bytes) return false;
    const signatures = parseSignatures(record.signatures, {
      reservedSigner: '',
      requireSelf: false,
    }).filter((entry) => entry.signer === signer);
    if (signatures.length === 0) return false;
    const trusted = new Map([[signer, parsePublicKey(serviceKey)]]);
    const [verdict] = await verifyCardSignatures(parseSnapshot(bytes, 'any'), signatures, {
      trusted,
    });
    return verdict?.status === 'invalid';
  } catch {
    return false;
  }
}
