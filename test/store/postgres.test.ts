/** The engine contract suite (contract.ts) and the Keyknox contract against the postgres engine. */
import { describeEngineContract } from './contract.js';
import { ENGINES } from './engines.js';
import { describeKeyknoxContract } from './keyknox-contract.js';

describeEngineContract(ENGINES.postgres);
describeKeyknoxContract(ENGINES.postgres);
