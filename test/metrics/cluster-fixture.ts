// A cluster as main.ts runs one under WEB_CONCURRENCY, without the service (so without PostgreSQL
// and Redis): the primary serves its workers' metrics summed (serveWorkersMetrics) and keeps two
// workers running (runWorkers); each worker counts the requests of a small HTTP server on the port
// they share (PORT, as the hosts share theirs) in a registry of its own, answers with its pid, and
// answers the primary's scrapes. Started by cluster-metrics.test.ts; logs JSON lines.
import cluster from 'node:cluster';
import { createServer } from 'node:http';
import { answerPrimaryScrapes, serveWorkersMetrics } from '../../src/metrics/cluster-metrics.ts';
import { createMetrics, observeRedisLimiter } from '../../src/metrics/metrics.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { runWorkers } from '../../src/platform/workers.ts';

const log = createLogger('info');

if (cluster.isPrimary) {
  const listener = await serveWorkersMetrics({
    host: '127.0.0.1',
    port: 0,
    log,
    answerTimeoutMs: Number(process.env.ANSWER_TIMEOUT_MS),
  });
  log.info({ metrics: listener.url }, "serving the workers' metrics");
  runWorkers({ count: 2, log, graceSeconds: 1 });
} else {
  const metrics = createMetrics();
  answerPrimaryScrapes(metrics, log);
  // A gauge of one process, and a counter every worker has: one each.
  observeRedisLimiter(metrics).redisUp(true);
  metrics.requestsShed.inc({ host: 'api' });
  const server = createServer((request, response) => {
    metrics.httpRequests.observe(
      { host: 'api', route: '/ping', method: request.method ?? 'GET', status: 200 },
      0.001,
    );
    response.end(String(process.pid));
  });
  server.listen(Number(process.env.PORT), '127.0.0.1', () => log.info('listening'));
}
