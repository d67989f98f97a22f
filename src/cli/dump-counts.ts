/**
 * What a dump (GET /_cards/export, `cards export`, a snapshot) holds, counted from its bytes as
 * they pass: e3kit's Keyknox records, each one object named `keyknox1` or `keyknox2` ahead of
 * the cards (src/store/keyknox-record.ts), and the cards, one a line. A line may arrive split
 * across chunks: only its first bytes are kept until its line break.
 */
const KEYKNOX_HEADS = ['{"keyknox1":', '{"keyknox2":'];
const HEAD = KEYKNOX_HEADS[0]?.length ?? 0;

export interface DumpCounts {
  cards: number;
  keyknox: number;
}

/** A counter fed the dump's bytes in order; `counts()` once the last chunk is in. */
export function dumpCounter(): { add(chunk: Uint8Array | string): void; counts(): DumpCounts } {
  const counts: DumpCounts = { cards: 0, keyknox: 0 };
  let head = '';
  let inLine = false;
  const end = (): void => {
    if (KEYKNOX_HEADS.includes(head)) counts.keyknox++;
    else counts.cards++;
    head = '';
    inLine = false;
  };
  return {
    add(chunk) {
      const bytes =
        typeof chunk === 'string'
          ? Buffer.from(chunk)
          : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      for (let at = 0; at < bytes.length;) {
        const lineBreak = bytes.indexOf(10, at);
        const stop = lineBreak === -1 ? bytes.length : lineBreak;
        if (stop > at) {
          inLine = true;
          if (head.length < HEAD)
            head += bytes.toString('latin1', at, Math.min(stop, at + HEAD - head.length));
        }
        if (lineBreak === -1) break;
        if (inLine) end();
        at = lineBreak + 1;
      }
    },
    counts: () => {
      if (inLine) end();
      return { ...counts };
    },
  };
}
