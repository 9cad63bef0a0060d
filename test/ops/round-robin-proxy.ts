// A tiny round-robin HTTP proxy on 127.0.0.1 standing for a load balancer in front of several
// instances. Each request goes to the next upstream in turn over kept-alive connections (as a load
// balancer's pool would). When an upstream refuses the connection (stopped, or restarting) the
// request goes to the next one: nothing reached the refusing instance, so this retry is safe for any
// method, as a load balancer's "next upstream on connect error" is. Any other failure (a connection
// reset after the request was sent) is answered 502 and left to the client, which retries with the
// same Idempotency-Key: the proxy cannot know whether the instance acted on it.
import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type Server,
} from 'node:http';
import type { AddressInfo } from 'node:net';

/** Header naming the upstream (its index in the list) that answered a proxied request. */
export const UPSTREAM_HEADER = 'x-test-upstream';

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'host',
  'content-length',
]);

function endToEnd(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  }
  return out;
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export class RoundRobinProxy {
  /** requests answered by each upstream, by index */
  readonly answered: number[];
  /** requests moved to the next upstream because one refused the connection */
  failovers = 0;
  /** requests answered 502 (reset or error after the request was sent, or every upstream refused) */
  badGateway = 0;
  /** why, for the first few 502s */
  readonly gatewayErrors: string[] = [];
  private next = 0;
  private server: Server | null = null;
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 64 });

  readonly upstreams: readonly string[];

  constructor(upstreams: readonly string[]) {
    this.upstreams = upstreams;
    this.answered = upstreams.map(() => 0);
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const first = this.next++ % this.upstreams.length;
        void this.forward(first, req.method ?? 'GET', req.url ?? '/', req.headers, body).then(
          ({ status, headers, body: answer, upstream }) => {
            if (upstream !== null) this.answered[upstream]!++;
            res.writeHead(status, {
              ...endToEnd(headers),
              'content-length': String(answer.length),
              [UPSTREAM_HEADER]: String(upstream ?? 'none'),
            });
            res.end(answer);
          },
        );
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  /** Tries upstreams from `first` on, moving on only when one refuses the connection. */
  private async forward(
    first: number,
    method: string,
    path: string,
    headers: IncomingHttpHeaders,
    body: Buffer,
  ): Promise<Answer & { upstream: number | null }> {
    for (let tried = 0; tried < this.upstreams.length; tried++) {
      const upstream = (first + tried) % this.upstreams.length;
      try {
        return { ...(await this.send(this.upstreams[upstream]!, method, path, headers, body)), upstream };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ECONNREFUSED') {
          this.failovers++;
          continue;
        }
        const message = `upstream ${upstream} (${method} ${path}): ${String(error)}`;
        this.badGateway++;
        if (this.gatewayErrors.length < 10) this.gatewayErrors.push(message);
        return gatewayError(message);
      }
    }
    this.badGateway++;
    return gatewayError('every upstream refused the connection');
  }

  private send(
    base: string,
    method: string,
    path: string,
    headers: IncomingHttpHeaders,
    body: Buffer,
  ): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const target = new URL(path, base);
      const req = httpRequest(
        target,
        {
          method,
          agent: this.agent,
          headers: { ...endToEnd(headers), 'content-length': String(body.length) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  async close(): Promise<void> {
    this.agent.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}

function gatewayError(message: string): Answer & { upstream: null } {
  return {
    status: 502,
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify({ error_code: 'bad_gateway', message })),
    upstream: null,
  };
}

export async function startRoundRobinProxy(upstreams: readonly string[]): Promise<RoundRobinProxy> {
  return new RoundRobinProxy(upstreams).start();
}
