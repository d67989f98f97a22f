/** The engine contract suite (contract.ts) against the postgres engine. */
import { describeEngineContract } from './contract.js';
import { ENGINES } from './engines.js';

describeEngineContract(ENGINES.postgres);
