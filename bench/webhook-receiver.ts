// The local webhook receiver of the webhook-backlog scenario: a plain node:http server on
// 127.0.0.1 that answers every POST 200 at once, counts deliveries by webhook-id and times their
// arrival, and verifies a sample of signatures with the Standard Webhooks library (as a partner
// would). Its own process, so that the bench's load generator never delays an answer or an
// arrival time. Driven over IPC: {secret, verifyEvery} starts it and is answered {port}; then
// 'reset' clears the counts and 'stats' (with an optional [from, to] window, epoch ms) reports them.
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { Webhook } from 'standardwebhooks';

interface Start {
  secret: string;
  /** verify the first delivery and then every n-th */
  verifyEvery: number;
}

type Command = { type: 'reset' } | { type: 'stats'; from?: number; to?: number };

/** Wall-clock ms with sub-millisecond resolution, comparable with Date.now() in the bench process. */
const now = () => performance.timeOrigin + performance.now();

process.once('message', (start: Start) => {
  const webhook = new Webhook(start.secret);
  let seen = new Set<string>();
  let arrivals: number[] = [];
  let requests = 0;
  let duplicates = 0;
  let verified = 0;
  let verifyFailures = 0;
  let failureExample: string | null = null;
  let otherTypes = 0;

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      res.writeHead(200, { 'content-length': '0' });
      res.end();
      const at = now();
      requests++;
      const id = String(req.headers['webhook-id'] ?? '');
      if (seen.has(id)) {
        duplicates++;
        return;
      }
      seen.add(id);
      arrivals.push(at);
      const body = Buffer.concat(chunks).toString('utf8');
      if (!body.startsWith('{"type":"order.paid"')) otherTypes++;
      if ((seen.size - 1) % start.verifyEvery !== 0) return;
      try {
        webhook.verify(body, req.headers as Record<string, string>);
        verified++;
      } catch (error) {
        verifyFailures++;
        failureExample ??= error instanceof Error ? error.message : String(error);
      }
    });
  });
  server.keepAliveTimeout = 72_000;

  process.on('message', (command: Command) => {
    if (command.type === 'reset') {
      seen = new Set();
      arrivals = [];
      requests = duplicates = verified = verifyFailures = otherTypes = 0;
      failureExample = null;
      process.send!({ type: 'reset' });
      return;
    }
    const from = command.from ?? -Infinity;
    const to = command.to ?? Infinity;
    process.send!({
      type: 'stats',
      requests,
      unique: seen.size,
      duplicates,
      verified,
      verifyFailures,
      failureExample,
      otherTypes,
      first: arrivals.length ? arrivals[0] : null,
      last: arrivals.length ? arrivals[arrivals.length - 1] : null,
      inWindow: arrivals.filter((t) => t >= from && t <= to).length,
    });
  });

  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.send!({ type: 'port', port: typeof address === 'object' && address ? address.port : 0 });
  });
  const stop = () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  // an interrupted bench must not leave the receiver behind
  process.on('disconnect', stop);
});
