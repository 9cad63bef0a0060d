// A TCP proxy on loopback in front of a real server (PostgreSQL, Redis) that a test cuts, stalls
// and restores: a real outage for the service under test while the shared server itself is never
// touched.
import { connect, createServer, type Server, type Socket } from 'node:net';

export class TcpProxy {
  readonly #to: { host: string; port: number };
  readonly #sockets = new Set<Socket>();
  #server: Server | null = null;
  #stalled = false;
  /** the proxy's port; kept across cut() and start(), so clients reconnect to the same address */
  port = 0;

  constructor(to: { host: string; port: number }) {
    this.#to = to;
  }

  /** Listens (again, on the same port after a cut) and forwards every byte both ways. */
  async start(): Promise<void> {
    this.#stalled = false;
    const server = createServer((client) => {
      const upstream = connect(this.#to.port, this.#to.host);
      for (const [from, to] of [
        [client, upstream],
        [upstream, client],
      ] as const) {
        this.#sockets.add(from);
        from.on('close', () => this.#sockets.delete(from));
        from.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
        // Dropped while stalled: the server looks alive (connections stay open) but never answers.
        from.on('data', (chunk) => {
          if (!this.#stalled) to.write(chunk);
        });
        from.on('end', () => to.end());
      }
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as { port: number }).port;
    this.#server = server;
  }

  /** Stops accepting and drops every connection through it: the server refuses. */
  async cut(): Promise<void> {
    const server = this.#server;
    this.#server = null;
    const closed = new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    for (const socket of this.#sockets) socket.destroy();
    await closed;
  }

  /** Keeps every connection open and accepts new ones, but forwards nothing: the server hangs. */
  stall(): void {
    this.#stalled = true;
  }
}
