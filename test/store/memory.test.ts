/** The engine contract suite (contract.ts) and the Keyknox contract against the memory engine. */
import { describeEngineContract } from './contract.js';
import { ENGINES } from './engines.js';
import { describeKeyknoxContract } from './keyknox-contract.js';

describeEngineContract(ENGINES.memory);
describeKeyknoxContract(ENGINES.memory);
