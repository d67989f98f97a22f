/**
 * The log's side of C2SP tlog-witness v1.0.0: submits each new checkpoint to a witness's
 * `POST <url>/add-checkpoint` with the consistency proof from the size the witness last
 * cosigned, learns that size from a 409 (`text/x.tlog.size`) and resends, and keeps only the
 * cosignature lines that verify under the witness's 0x04 key (tlog-cosignature v1.0.1).
 */
import { boundedBody } from '../client/bounded-body.js';
import { nodeFetch } from '../client/node-fetch.js';
import { CardsError } from '../core/errors.js';
import { utf8 } from '../core/encoding.js';
import { cosignatureVerifier } from '../log/cosignature.js';
import type { CheckpointCosigner } from '../log/cosigning.js';
import { parseNote, parseSignatureLine } from '../log/note.js';
import { formatAddCheckpoint } from '../log/witness.js';

export interface WitnessClientOptions {
  /** The witness's base URL; the request goes to `<url>/add-checkpoint`. */
  readonly url: string;
  /** The witness's cosignature verifier key (name+id+base64(0x04 ‖ key)). */
  readonly vkey: string;
  readonly timeoutMs?: number;
}

/** The most of a witness's answer read: its cosignature lines are ~150 bytes each. */
const WITNESS_ANSWER_MAX = 64 * 1024;

export function witnessClient(options: WitnessClientOptions): CheckpointCosigner {
  const verifier = cosignatureVerifier(options.vkey);
  const endpoint = `${options.url.replace(/\/+$/, '')}/add-checkpoint`;
  let known = 0; // the size the witness last cosigned, as far as we know
  return {
    name: verifier.name,
    async cosign(signed, size, proof, signal) {
      const text = utf8(parseNote(signed).text);
      for (let attempt = 0; attempt < 3; attempt++) {
        const old = known <= size ? known : 0;
        const body = formatAddCheckpoint(old, old === 0 ? [] : await proof(old), signed);
        const res = await nodeFetch(endpoint, {
          method: 'POST',
          body,
          signal: AbortSignal.any([signal, AbortSignal.timeout(options.timeoutMs ?? 5000)]),
        });
        const bytes = await boundedBody(res, WITNESS_ANSWER_MAX);
        if (bytes === undefined)
          throw new CardsError(
            'SERVICE_REFUSED',
            `${endpoint} answered more than ${WITNESS_ANSWER_MAX / 1024} KiB, more than any cosignature holds`,
          );
        const answer = bytes.toString('utf8');
        if (res.status === 409 && /^\d+\n?$/.test(answer)) {
          const reported = Number(answer.trim());
          if (reported > size)
            throw new CardsError(
              'LOG_INCONSISTENT',
              `the witness cosigned size ${reported}, above this log's ${size}: the log was rewound`,
            );
          if (reported === known) break;
          known = reported;
          continue;
        }
        if (res.status !== 200)
          throw new CardsError(
            'SERVICE_REFUSED',
            `HTTP ${res.status} from ${endpoint}: ${answer.trim().slice(0, 200)}`,
          );
        const lines = answer
          .split('\n')
          .filter(Boolean)
          .map(parseSignatureLine)
          .filter(
            (sig) =>
              sig.name === verifier.name &&
              sig.keyId === verifier.keyId &&
              verifier.verify(text, sig.signature),
          );
        if (lines.length === 0)
          throw new CardsError('LOG_SIGNATURE_INVALID', `no valid cosignature from ${endpoint}`);
        known = size;
        return lines.map((sig) => sig.line).join('');
      }
      throw new CardsError('LOG_SIZE_MISMATCH', `${endpoint} kept answering 409`);
    },
  };
}
