// The metrics listener: GET /metrics in Prometheus's text format on a port of its own
// (METRICS_PORT, on 127.0.0.1 unless METRICS_HOST says otherwise), never on the public hosts. It
// serves a service's registry, or under WEB_CONCURRENCY the primary's sum of its workers'
// (cluster-metrics.ts).
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';

/** What a scrape reads: a prom-client registry, or anything answering as one. */
export interface Scrapeable {
  registry: { readonly contentType: string; metrics(): Promise<string> };
}

export interface MetricsListener {
  /** where to scrape, e.g. http://127.0.0.1:9464/metrics */
  url: string;
  close(): Promise<void>;
}

export interface ListenForScrapesOptions {
  host: string;
  /** 0: any free port */
  port: number;
  log: Logger;
}

/** A scrape takes well under a second; a client slower than this is cut off. */
const SCRAPE_TIMEOUT_MS = 10_000;

function answer(
  response: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
) {
  response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', ...headers });
  response.end(text);
}

export async function listenForScrapes(
  metrics: Scrapeable,
  { host, port, log }: ListenForScrapesOptions,
): Promise<MetricsListener> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics') return answer(response, 404, 'Not found: the metrics are at /metrics.\n');
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return answer(response, 405, 'Only GET and HEAD are allowed.\n', { Allow: 'GET, HEAD' });
    }
    metrics.registry.metrics().then(
      (text) => {
        response.writeHead(200, {
          'Content-Type': metrics.registry.contentType,
          'Cache-Control': 'no-store',
        });
        response.end(request.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        log.error({ err: error }, 'metrics: collecting failed');
        answer(response, 503, 'The metrics could not be collected; see the log.\n');
      },
    );
  });
  server.headersTimeout = SCRAPE_TIMEOUT_MS;
  server.requestTimeout = SCRAPE_TIMEOUT_MS;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${bound}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
