// The bench imports the project as a user does, by package name and public entry point
// (package.json "exports": cards/core, cards/crypto, …), so the repository root is linked in as
// bench/node_modules/cards. `npm ci --prefix bench` empties node_modules, so bench's
// package.json runs this after every install (postinstall): a bench script run alone
// (`node bench/log-serve.mjs`) then finds the package too. `npm run bench` calls it again, for
// an install made with scripts off. A `file:..` dependency would do the same but write the
// root's whole dependency tree into bench's own lock file.
import { lstatSync, symlinkSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export function linkSelf() {
  const link = new URL('../node_modules/cards', import.meta.url);
  try {
    lstatSync(link);
  } catch {
    symlinkSync('../..', link, 'dir');
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) linkSelf();
