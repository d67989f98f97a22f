/**
 * What a Pythia worker thread is asked to compute, and how its answer crosses back: a refusal
 * (a `CardsError` of bad input) travels as its code and message, since a thread boundary keeps
 * only an Error's message. Pure dispatch over src/crypto/pythia.ts.
 */
import { isCardsError, type ErrorCode } from '../core/errors.js';
import {
  derivePythiaKeys,
  transformBrainkey,
  transformPassword,
  type PasswordTransform,
  type PythiaKeyPair,
  type PythiaKeys,
  type PythiaPrimitives,
} from '../crypto/pythia.js';

export type PythiaJob =
  | { readonly op: 'keys'; readonly secret: Uint8Array; readonly versions: number }
  | {
      readonly op: 'brainkey';
      readonly key: PythiaKeyPair;
      readonly blindedPassword: Uint8Array;
      readonly tweak: Uint8Array;
    }
  | {
      readonly op: 'password';
      readonly key: PythiaKeyPair;
      readonly blindedPassword: Uint8Array;
      readonly salt: Uint8Array;
      readonly includeProof: boolean;
    };

/** The answer of each job. */
export interface PythiaAnswers {
  keys: PythiaKeys;
  brainkey: Uint8Array;
  password: PasswordTransform;
}

export type PythiaOutcome<T> =
  { readonly ok: T } | { readonly refused: { readonly code: ErrorCode; readonly message: string } };

export function runPythiaJob(p: PythiaPrimitives, job: PythiaJob): PythiaOutcome<unknown> {
  try {
    switch (job.op) {
      case 'keys':
        return { ok: derivePythiaKeys(p, job.secret, job.versions) };
      case 'brainkey':
        return { ok: transformBrainkey(p, job.key, job.blindedPassword, job.tweak) };
      case 'password':
        return {
          ok: transformPassword(p, job.key, job.blindedPassword, job.salt, job.includeProof),
        };
    }
  } catch (err) {
    if (isCardsError(err)) return { refused: { code: err.code, message: err.message } };
    throw err;
  }
}
