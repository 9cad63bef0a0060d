// A counting TCP proxy for the PostgreSQL wire protocol, used only to count what one request
// costs in the database: it forwards bytes unchanged both ways and parses the client's side into
// messages. Statements = Execute + simple Query messages. Round trips = the times a connection's
// client sends after the server has answered (what it sends before any answer is one pipeline,
// one trip; postgres.js sends Parse/Describe/Flush and waits for the parameter types before
// Bind/Execute/Sync when a statement is not prepared, so such a statement costs two).
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface WireCounts {
  statements: number;
  roundTrips: number;
  parses: number;
  messages: number;
}

export interface CountingProxy {
  port: number;
  counts(): WireCounts;
  reset(): void;
  close(): Promise<void>;
}

const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;

/** Parses a client->server stream: untyped startup messages first, then typed messages. */
class ClientStream {
  private buffer: Buffer = Buffer.alloc(0);
  private started = false;
  private readonly onMessage: (type: string) => void;
  constructor(onMessage: (type: string) => void) {
    this.onMessage = onMessage;
  }

  push(chunk: Buffer): void {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    while (true) {
      if (!this.started) {
        if (this.buffer.length < 8) return;
        const length = this.buffer.readInt32BE(0);
        if (this.buffer.length < length) return;
        const code = this.buffer.readInt32BE(4);
        this.buffer = this.buffer.subarray(length);
        // SSL/GSS requests are followed by another untyped startup message
        if (code !== SSL_REQUEST && code !== GSS_REQUEST) this.started = true;
        continue;
      }
      if (this.buffer.length < 5) return;
      const length = this.buffer.readInt32BE(1);
      if (this.buffer.length < 1 + length) return;
      this.onMessage(String.fromCharCode(this.buffer[0]!));
      this.buffer = this.buffer.subarray(1 + length);
    }
  }
}

export function startCountingProxy(target: { host: string; port: number }): Promise<CountingProxy> {
  const zero = (): WireCounts => ({ statements: 0, roundTrips: 0, parses: 0, messages: 0 });
  let counts = zero();
  const sockets = new Set<Socket>();
  const onMessage = (type: string) => {
    counts.messages++;
    if (type === 'E' || type === 'Q') counts.statements++;
    if (type === 'P') counts.parses++;
  };
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    sockets.add(client).add(upstream);
    const stream = new ClientStream(onMessage);
    // A round trip: the client sends, then waits for the server. Whatever it sends before the
    // server has answered anything belongs to the same trip (a pipeline).
    let answered = true;
    client.on('data', (chunk: Buffer) => {
      if (answered) counts.roundTrips++;
      answered = false;
      stream.push(chunk);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      answered = true;
      client.write(chunk);
    });
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', close).on('error', close);
    upstream.on('close', close).on('error', close);
  });
  return new Promise((resolveProxy, reject) => {
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolveProxy({
        port: typeof address === 'object' && address ? address.port : 0,
        counts: () => ({ ...counts }),
        reset: () => {
          counts = zero();
        },
        close: () =>
          new Promise<void>((done) => {
            for (const s of sockets) s.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}
