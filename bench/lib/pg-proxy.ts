// A counting TCP proxy for the PostgreSQL wire protocol, used only to count what one request
// costs in the database: it forwards bytes unchanged both ways and parses the client's side into
// messages. Statements = Execute + simple Query messages. Round trips = the times a connection's
// client sends after the server has answered (what it sends before any answer is one pipeline,
// one trip; postgres.js sends Parse/Describe/Flush and waits for the parameter types before
// Bind/Execute/Sync when a statement is not prepared, so such a statement costs two). Statements
// whose text `background` picks (a write a timer makes once a second, whatever the traffic) are
// counted apart, and so are the round trips that carry nothing else.
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface WireCounts {
  statements: number;
  roundTrips: number;
  parses: number;
  messages: number;
  /** statements `background` picked, and the round trips that carried only those */
  backgroundStatements: number;
  backgroundRoundTrips: number;
}

export interface CountingProxy {
  port: number;
  counts(): WireCounts;
  reset(): void;
  close(): Promise<void>;
}

const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;

/** A NUL-terminated string at `at`, and where the next field starts. */
function cString(body: Buffer, at: number): [string, number] {
  const end = body.indexOf(0, at);
  return [body.toString('utf8', at, end), end + 1];
}

/** Parses a client->server stream: untyped startup messages first, then typed messages. */
class ClientStream {
  private buffer: Buffer = Buffer.alloc(0);
  private started = false;
  private readonly onMessage: (type: string, body: Buffer) => void;
  constructor(onMessage: (type: string, body: Buffer) => void) {
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
      this.onMessage(String.fromCharCode(this.buffer[0]!), this.buffer.subarray(5, 1 + length));
      this.buffer = this.buffer.subarray(1 + length);
    }
  }
}

export function startCountingProxy(
  target: { host: string; port: number },
  background: (sql: string) => boolean = () => false,
): Promise<CountingProxy> {
  const zero = (): WireCounts => ({
    statements: 0,
    roundTrips: 0,
    parses: 0,
    messages: 0,
    backgroundStatements: 0,
    backgroundRoundTrips: 0,
  });
  let counts = zero();
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    sockets.add(client).add(upstream);
    // prepared statements' and bound portals' texts, so that an Execute is known by its text
    const prepared = new Map<string, string>();
    const portals = new Map<string, string>();
    // A round trip: the client sends, then waits for the server. Whatever it sends before the
    // server has answered anything belongs to the same trip (a pipeline). Counted when answered.
    let trip: { statements: number; background: number } | null = null;
    const statement = (sql: string) => {
      if (background(sql)) {
        counts.backgroundStatements++;
        trip!.background++;
      } else {
        counts.statements++;
        trip!.statements++;
      }
    };
    const stream = new ClientStream((type, body) => {
      counts.messages++;
      if (type === 'P') {
        counts.parses++;
        const [name, next] = cString(body, 0);
        prepared.set(name, cString(body, next)[0]);
      } else if (type === 'B') {
        const [portal, next] = cString(body, 0);
        portals.set(portal, prepared.get(cString(body, next)[0]) ?? '');
      } else if (type === 'E') {
        statement(portals.get(cString(body, 0)[0]) ?? '');
      } else if (type === 'Q') {
        statement(cString(body, 0)[0]);
      }
    });
    client.on('data', (chunk: Buffer) => {
      trip ??= { statements: 0, background: 0 };
      stream.push(chunk);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (trip) {
        if (trip.background > 0 && trip.statements === 0) counts.backgroundRoundTrips++;
        else counts.roundTrips++;
      }
      trip = null;
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
