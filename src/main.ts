// Start: config -> database -> migrations (applied, or in production checked) -> listeners;
// SIGTERM/SIGINT stop it in order. With WEB_CONCURRENCY > 1 this process runs that many workers.
import { ConfigError, loadConfig, type Config } from './config.ts';
import { ensureAdminKey } from './admin/index.ts';
import { seedDemo } from './demo/index.ts';
import { createLogger, MigrationsPending, runWorkers, workerIndex } from './platform/index.ts';
import { createService, type Service } from './service.ts';
import { startLocalSimulator } from './payments/index.ts';
import { answerPrimaryScrapes, serveWorkersMetrics } from './metrics/index.ts';
import type { Logger } from 'pino';

async function main() {
  const config = readConfig();
  const log = createLogger(config.logLevel);
  exitOnEscape(log);
  const index = workerIndex();
  if (index === undefined && config.webConcurrency > 1) {
    // Migrations (or their check) and the demo seed run once, before any worker opens the database.
    const service = await openService(config, log);
    await welcome(service, config);
    await service.close();
    // The workers share one simulator, kept here: its payments live in its memory.
    const { provider, simulatorUrl } = config.payments;
    const simulator =
      provider === 'simulator' && !simulatorUrl
        ? await startLocalSimulator(config, log.child({ component: 'payments' }))
        : undefined;
    // One metrics endpoint for the instance: the workers' metrics, summed here. Bound before any
    // worker starts, so that a port in use stops the start.
    if (config.metrics) {
      const listener = await serveWorkersMetrics({ ...config.metrics, log });
      log.info({ metrics: listener.url }, "serving the workers' metrics");
    }
    runWorkers({
      count: config.webConcurrency,
      log,
      graceSeconds: config.shutdownGraceSeconds,
      env: simulator ? { SIMULATOR_URL: simulator.url, SIMULATOR_PORT: '' } : {},
    });
    return;
  }
  const service = await openService(config, log);
  if (index === undefined) await welcome(service, config);
  // A worker counts, and its primary serves the sum on METRICS_PORT, asking it at each scrape.
  const metrics = service.ctx.metrics;
  if (index !== undefined && metrics) answerPrimaryScrapes(metrics, log);
  const urls = await service.listen(index === undefined ? {} : { metrics: false });
  log.info({ ...urls, database: service.ctx.database.kind }, 'listening');
  if (config.webhooks.allowPrivateUrls && !index) {
    log.info(
      'webhook URLs on this machine and private networks are accepted (development); WEBHOOK_ALLOW_PRIVATE_URLS=false refuses them',
    );
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: finishing in-flight requests');
    const force = setTimeout(() => {
      log.error('shutdown grace period over; exiting');
      process.exit(1);
    }, config.shutdownGraceSeconds * 1000);
    force.unref();
    await service.close();
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

/**
 * Whatever still escapes (an exception no code catches, a rejection no code handles) ends the
 * process as one JSON line at fatal with its stack: its state is unknown, and a supervisor starts
 * it again (the primary under WEB_CONCURRENCY, systemd or a container's restart policy otherwise;
 * docs/operations.md). A rejection left unhandled arrives here too, with that origin.
 */
function exitOnEscape(log: Logger): void {
  process.on('uncaughtException', (error, origin) => {
    log.fatal({ err: error, origin }, 'uncaught error; exiting');
    process.exit(1);
  });
}

function readConfig(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`configuration error: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
}

async function openService(config: Config, log: Logger): Promise<Service> {
  try {
    return await createService(config, { logger: log });
  } catch (error) {
    if (error instanceof MigrationsPending) {
      console.error(`error: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
}

/** The admin key made on a first start, and the demo organization seeded, printed once. */
async function welcome(service: Service, config: Config): Promise<void> {
  const adminKey = await ensureAdminKey(service.ctx);
  if (config.seedDemo) {
    const demo = await seedDemo(service.ctx, adminKey);
    if (demo) {
      // Printed once, on the first start: these secrets are not shown again (see DATA_DIR/demo.json).
      process.stdout.write(
        [
          '',
          'Demo organization created. Keep these; they are not shown again:',
          `  organization_id  ${demo.organization_id}`,
          `  client_id        ${demo.client_id}`,
          `  client_secret    ${demo.client_secret}`,
          `  publishable_key  ${demo.publishable_key}`,
          `  allowed domains  ${demo.allowed_domains.join(', ')}`,
          `                   (pages that may open checkout.js with the publishable key)`,
          `  return URLs      ${demo.return_url_domains.join(', ')}`,
          `                   (where a checkout session's on_success_url and on_cancel_url may point)`,
          `  admin_api_key    ${demo.admin_api_key ?? '(from ADMIN_API_KEY)'}`,
          `  organizer app    ${demo.owner_invitation_url}`,
          `                   (${demo.owner_email} chooses a password there; valid 7 days)`,
          `  saved to         ${config.dataDir}/demo.json`,
          '',
        ].join('\n') + '\n',
      );
    }
  } else if (adminKey) {
    process.stdout.write(`\nAdmin API key (shown once): ${adminKey}\n\n`);
  }
}

main().catch((error: unknown) => {
  // A start that fails (a database that cannot be reached) says why as one JSON line, like the rest.
  createLogger('info').fatal({ err: error, pid: process.pid }, 'start failed; exiting');
  process.exit(1);
});
