/** The store conformance suite (contract.ts) against the memory engine. */
import { describeStoreContract } from './contract.js';
import { ENGINES } from './engines.js';

describeStoreContract('memory', ENGINES.memory);
