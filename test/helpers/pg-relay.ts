/**
 * A TCP relay between a store and PostgreSQL that cuts one connection at a chosen statement:
 * after PostgreSQL answered it (the write took effect; the store never hears so) or before
 * PostgreSQL saw it (it never took effect). `goAway` ends every connection and turns new ones
 * away, as a database gone would.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

/** The simple-query message of `COMMIT` as node-postgres sends it (PostgreSQL protocol 3). */
export const COMMIT_QUERY = Buffer.concat([
  Buffer.from('Q'),
  Buffer.from([0, 0, 0, 11]),
  Buffer.from('COMMIT\0'),
]);

export interface Cut {
  /** Bytes the client's message holds (a statement's text, `COMMIT_QUERY`). */
  readonly at: Buffer;
  readonly when: 'after-answer' | 'before-sent';
}

export class PgRelay {
  /** The next message holding `cut.at` ends its connection, then `cut` is cleared. */
  cut: Cut | undefined;
  /** Connections cut so far. */
  cuts = 0;
  #refuse = false;
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();

  constructor(target: { host: string; port: number }) {
    this.#server = createServer((client) => {
      if (this.#refuse) return void client.destroy();
      const upstream = connect(target);
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.on('close', () => this.#sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      let answering = false;
      const end = (): void => {
        client.destroy();
        upstream.destroy();
      };
      client.on('data', (chunk: Buffer) => {
        const cut = this.cut;
        if (cut && chunk.includes(cut.at)) {
          this.cut = undefined;
          this.cuts++;
          if (cut.when === 'before-sent') return end();
          answering = true;
        }
        upstream.write(chunk);
      });
      // The answer (ending with ReadyForQuery) is swallowed, then the connection cut.
      upstream.on('data', (chunk: Buffer) => (answering ? end() : client.write(chunk)));
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
  }

  /** Listens on a loopback port; resolves with `url` pointing through the relay. */
  static async before(url: string): Promise<{ relay: PgRelay; url: string }> {
    const direct = new URL(url);
    const relay = new PgRelay({ host: direct.hostname, port: Number(direct.port) });
    await new Promise<void>((resolve) => relay.#server.listen(0, '127.0.0.1', resolve));
    const through = new URL(url);
    through.port = String((relay.#server.address() as { port: number }).port);
    return { relay, url: through.toString() };
  }

  /** Resolves once a connection has been cut. */
  async cutDone(): Promise<void> {
    while (this.cuts === 0) await new Promise((resolve) => setTimeout(resolve, 1));
  }

  goAway(): void {
    this.#refuse = true;
    for (const socket of this.#sockets) socket.destroy();
  }

  close(): Promise<void> {
    this.goAway();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}
