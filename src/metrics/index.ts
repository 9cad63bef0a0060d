// Prometheus metrics: the registry, request and database timing, gauges and the listener.
export { answerPrimaryScrapes, serveWorkersMetrics } from './cluster-metrics.ts';
export { listenForScrapes } from './metrics-listener.ts';
export type { MetricsListener } from './metrics-listener.ts';
export { createMetrics, observeRedisLimiter } from './metrics.ts';
export type { Metrics, WebhookOutcome } from './metrics.ts';
export { countRefusal, countRefusals } from './rate-limit-refusals.ts';
export { observeRequests } from './request-metrics.ts';
export { readAtScrape, watchDatabase } from './scrape-gauges.ts';
