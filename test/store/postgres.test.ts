/** The store conformance suite (contract.ts) against the postgres engine. */
import { describeStoreContract } from './contract.js';
import { ENGINES } from './engines.js';

describeStoreContract('postgres', ENGINES.postgres);
