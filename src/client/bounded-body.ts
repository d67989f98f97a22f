/**
 * An answer's body read up to a bound: a server that sends more than any legal answer holds (or
 * never stops) costs the client that bound, not its memory, and gets a clear error rather than
 * a string too long for JavaScript (512 MiB) thrown where no caller catches it.
 */

/** The bytes of a fetch answer, or undefined once more than `max` arrive (the rest is cancelled). */
export async function boundedBody(response: Response, max: number): Promise<Buffer | undefined> {
  if (response.body === null) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** `bytes` as MiB or KiB, as a message names a bound. */
export const sizeName = (bytes: number): string =>
  bytes >= 1024 * 1024
    ? `${Math.floor(bytes / (1024 * 1024))} MiB`
    : `${Math.floor(bytes / 1024)} KiB`;
