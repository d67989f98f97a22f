/**
 * The few file-system moves durability needs, in one place: fsync a directory (so a created,
 * renamed or removed name survives power loss) and replace a file atomically (write a temporary
 * file beside it, fsync, rename over, fsync the directory): a reader sees the old file or the
 * new one, never a torn one.
 */
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export async function fsyncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Writes `chunks` (produced lazily, so a large file never sits in memory whole) to a temporary
 * file and renames it over `path`. The temporary file is removed when anything fails.
 */
export async function replaceFile(
  path: string,
  chunks: Iterable<string>,
  mode = 0o644,
): Promise<number> {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  let bytes = 0;
  try {
    const handle = await open(tmp, 'w', mode);
    try {
      for (const chunk of chunks) {
        const buffer = Buffer.from(chunk, 'utf8');
        let offset = 0;
        while (offset < buffer.byteLength) {
          const { bytesWritten } = await handle.write(buffer, offset);
          offset += bytesWritten;
        }
        bytes += buffer.byteLength;
      }
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  }
  await fsyncDir(dirname(path));
  return bytes;
}
