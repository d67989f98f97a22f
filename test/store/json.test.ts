/** The engine contract suite (contract.ts) against the json engine. */
import { describeEngineContract } from './contract.js';
import { ENGINES } from './engines.js';

describeEngineContract(ENGINES.json);
