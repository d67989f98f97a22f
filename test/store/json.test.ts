/** The store conformance suite (contract.ts) against the json engine. */
import { describeStoreContract } from './contract.js';
import { ENGINES } from './engines.js';

describeStoreContract('json', ENGINES.json);
