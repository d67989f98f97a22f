/**
 * The next step for a file-system refusal (errno) met while `cards serve` opens its JSON store:
 * the store's file, journal, lock, keys and log are made beside the file --db names, in its
 * folder (made when missing), so each refusal names what to change there. A refusal elsewhere
 * (--ready-file, --service-key) keeps the general hint.
 */
import { statSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import type { FileSystemError } from '../../report-error.js';

const kind = (path: string): 'folder' | 'file' | undefined => {
  const found = statSync(path, { throwIfNoEntry: false });
  return found === undefined ? undefined : found.isDirectory() ? 'folder' : 'file';
};

const within = (folder: string, path: string): boolean =>
  path === folder || path.startsWith(folder.endsWith(sep) ? folder : `${folder}${sep}`);

/** The first path on the way to `folder`, from the root down, that is a file. */
function fileOnTheWay(folder: string): string | undefined {
  const ways: string[] = [];
  for (let p = folder; ways.at(-1) !== p; p = dirname(p)) ways.push(p);
  return ways.reverse().find((p) => kind(p) === 'file');
}

const user = (): string => {
  try {
    return userInfo().username;
  } catch {
    return String(process.getuid?.() ?? 'this');
  }
};

/** `store`: the JSON store's file (absolute); `flag`: the flag that names it. */
export function storePathHint(
  err: FileSystemError,
  store: string,
  flag: string,
): string | undefined {
  const at = `${flag} ${store}`;
  if (err.code === 'EISDIR' && kind(store) === 'folder')
    return `${at} is a folder: name the store's file, e.g. ${flag} ${join(store, 'cards.json')}`;
  const folder = dirname(store);
  const path = err.path === undefined ? undefined : resolve(err.path);
  if (path === undefined || !(within(folder, path) || within(path, folder))) return undefined;
  switch (err.code) {
    case 'ENOTDIR':
    case 'EEXIST': {
      const file = fileOnTheWay(folder);
      if (file === undefined) return undefined;
      return `${file} is a file, not a folder: ${at} needs a folder there (made when missing); give another ${flag}, or move that file`;
    }
    case 'EACCES':
    case 'EPERM': {
      // A file that is there refuses by its own mode (opening it asks nothing of its folder's
      // write bit, POSIX open(2)); a file to make, by its folder's.
      const found = err.syscall === 'mkdir' ? undefined : kind(path);
      if (found === 'file')
        return `user ${user()} may not open ${path}: a file of the store beside ${flag}, it must be this user's to read and write; change its owner or mode, or give another ${flag}`;
      const where = found === 'folder' ? path : dirname(path);
      return `user ${user()} may not write in ${where}: the store's file, journal, lock, keys and log are made beside ${flag}; give a ${flag} in a folder this user can write, or let it write in that one`;
    }
    case 'EROFS':
      return `${folder} is on a read-only file system: give a ${flag} on a writable one`;
    case 'ENOSPC':
      return `the disk holding ${folder} is full: free space there, or give a ${flag} on another disk`;
    default:
      return undefined;
  }
}
