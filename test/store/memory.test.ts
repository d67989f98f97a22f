/** The engine contract suite (contract.ts), the Keyknox contract and its listing's pages against the memory engine. */
import { describeEngineContract } from './contract.js';
import { ENGINES } from './engines.js';
import { describeKeyknoxContract } from './keyknox-contract.js';
import { describeKeyknoxPages } from './keyknox-pages-contract.js';

describeEngineContract(ENGINES.memory);
describeKeyknoxContract(ENGINES.memory);
describeKeyknoxPages(ENGINES.memory);
