// `npm run bench`: builds the service, seeds a fresh database (PostgreSQL when DATABASE_URL is
// set, else PGlite), starts `node dist/src/main.js` with NODE_ENV=production, runs the scenarios
// in bench/scenarios/ against it, prints a table and the goals, and writes
// bench/results/latest.json. See bench/README.md.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildService } from './lib/build.ts';
import { createBenchDatabase, type BenchDatabase } from './lib/database.ts';
import { BUSY_THRESHOLD, loadAverage, machineInfo, waitForQuiet } from './lib/machine.ts';
import { fetchToken } from './lib/http.ts';
import { RESULTS_DIR, ROOT, SERVICE_ENTRY, SERVICE_ROOT } from './lib/paths.ts';
import { BENCH_RATE_LIMITS, startService, stopAllChildren, type RunningService } from './lib/processes.ts';
import { formatGoal, formatTable } from './lib/report.ts';
import type { BenchContext, Scenario, ScenarioReport } from './lib/scenario.ts';
import { HOLD_CAPACITY, seedBenchData } from './lib/seed.ts';
import { deviations, loadSettings } from './lib/settings.ts';
import { checkIn } from './scenarios/checkin.ts';
import { checkoutSessions } from './scenarios/checkout-sessions.ts';
import { eventsList } from './scenarios/events-list.ts';
import { flashSale } from './scenarios/flash-sale.ts';
import { holdContention, WARMUP_BURSTS } from './scenarios/hold-contention.ts';
import { backOffice } from './scenarios/back-office.ts';
import { organizerOrders } from './scenarios/organizer-orders.ts';
import { overload } from './scenarios/overload.ts';
import { statementsPerRequest } from './scenarios/statements-per-request.ts';
import { tokenTiming } from './scenarios/token-timing.ts';
import { webhookBacklog } from './scenarios/webhook-backlog.ts';

/**
 * Run in this order. The flash sale, which kills and restarts its own service, comes last, so
 * that the load scenarios run on a machine nothing else has disturbed yet.
 */
const SCENARIOS: Scenario[] = [
  eventsList,
  tokenTiming,
  statementsPerRequest,
  checkoutSessions,
  holdContention,
  organizerOrders,
  backOffice,
  checkIn,
  webhookBacklog,
  overload,
  flashSale,
];

const log = (line: string) => process.stdout.write(`${line}\n`);

// autocannon's timer library (retimer) computes a negative delay when the event loop falls
// behind under load; Node then prints a TimeoutNegativeWarning. Harmless: hide that one only.
process.removeAllListeners('warning');
process.on('warning', (warning) => {
  if (warning.name !== 'TimeoutNegativeWarning') console.error(`${warning.name}: ${warning.message}`);
});

async function main(): Promise<number> {
  const settings = loadSettings();
  const started = new Date();
  let database: BenchDatabase | null = null;
  let service: RunningService | null = null;
  let cleaning: Promise<void> | null = null;
  const cleanup = () =>
    (cleaning ??= (async () => {
      await service?.stop().catch((e: unknown) => log(`stopping the service failed: ${String(e)}`));
      await stopAllChildren().catch((e: unknown) => log(`stopping a child process failed: ${String(e)}`));
      await database?.drop().catch((e: unknown) => log(`dropping the bench database failed: ${String(e)}`));
    })());
  const onSignal = (signal: NodeJS.Signals) => {
    log(`\n${signal}: stopping the service and removing the bench database`);
    void cleanup().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    buildService(settings.skipBuild, log);
    database = await createBenchDatabase(process.env.DATABASE_URL || undefined);
    log(`database: ${database.label}`);
    // hold contention spends one fresh ticket type per burst: its warm-up and each measured run
    const partner = await seedBenchData(database.open, { holdEvents: settings.runs + WARMUP_BURSTS });
    log(
      `seeded: 1 organization, ${partner.eventIds.length} open public events (2 ticket types each), 1 client, ` +
        `${partner.holdEvents.length} unlisted hold-contention events (1 free ticket type of ${HOLD_CAPACITY} each)`,
    );
    service = await startService(database.serviceEnv, log);
    log(
      `service: node ${SERVICE_ENTRY} (pid ${service.pid}) at ${service.apiUrl}, NODE_ENV=production, LOG_LEVEL=${service.env.LOG_LEVEL}` +
        (SERVICE_ROOT === ROOT ? '' : `  [another checkout: BENCH_SERVICE_ROOT=${SERVICE_ROOT}]`),
    );
    log(
      `rate limits raised for the bench: ${Object.entries(BENCH_RATE_LIMITS)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')}`,
    );
    const backgroundAtStart = await waitForQuiet(settings.waitQuietSeconds, log);
    const loadAtStart = loadAverage();
    if (backgroundAtStart !== null) {
      log(
        `machine: ${(backgroundAtStart * 100).toFixed(0)}% of the CPUs busy in other processes, load average ${loadAtStart.join(' ')}` +
          (backgroundAtStart >= BUSY_THRESHOLD ? '  [WARNING: busy machine; figures will be disturbed]' : ''),
      );
    }
    const apiUrl = service.apiUrl;
    const ctx: BenchContext = {
      settings,
      database,
      apiUrl,
      servicePid: service.pid,
      partner,
      log,
      getToken: (scope?: string) => fetchToken(apiUrl, partner, scope),
    };
    const changed = deviations(settings);
    log(
      `load: autocannon -c ${settings.connections} -p ${settings.pipelining}, ${settings.warmupSeconds} s warm-up, ` +
        `${settings.runs} runs of ${settings.durationSeconds} s, median` +
        (changed.length ? `  [NOT the standard settings: ${changed.join(', ')}]` : ''),
    );

    const reports: ScenarioReport[] = [];
    const failures: Array<{ scenario: string; error: string }> = [];
    // BENCH_ONLY=<text>[,<text>...]: run only the scenarios whose name contains one of the texts
    // (trial runs, profiling).
    const only = (process.env.BENCH_ONLY ?? '')
      .toLowerCase()
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
    const selected = SCENARIOS.filter(
      (s) => only.length === 0 || only.some((t) => s.name.toLowerCase().includes(t)),
    );
    for (const scenario of selected) {
      log(`\n== ${scenario.name}`);
      try {
        reports.push(await scenario.run(ctx));
      } catch (error) {
        const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
        log(`  scenario failed: ${message}`);
        failures.push({ scenario: scenario.name, error: message });
      }
    }

    const machine = machineInfo();
    const loadAtEnd = loadAverage();
    log('\n================ results ================');
    log(
      `database ${database.kind}, node ${process.version}, ${machine.cpus} CPUs (${machine.cpu_model}), ` +
        `${started.toISOString()}`,
    );
    log(`rate limits raised via env for the bench (bearer 1,000,000/s, token 1,000/s burst 100,000)`);
    const rows = reports.flatMap((r) => r.table);
    if (rows.length) log(`\n${formatTable(rows)}`);
    for (const r of reports) for (const note of r.notes) log(note);
    const goals = reports.flatMap((r) => r.goals);
    log('\ngoals:');
    for (const goal of goals) log(formatGoal(goal));
    if (database.kind !== 'postgres') {
      log('  (* the throughput and latency goals are defined for PostgreSQL; shown for information)');
    }
    for (const f of failures) log(`  ERROR  ${f.scenario}: ${f.error.split('\n')[0]}`);

    mkdirSync(RESULTS_DIR, { recursive: true });
    const file = join(RESULTS_DIR, 'latest.json');
    const results = {
      date: started.toISOString(),
      finished: new Date().toISOString(),
      database: database.kind,
      node: process.version,
      machine,
      background: {
        busy_share_at_start: backgroundAtStart,
        load_average_at_start: loadAtStart,
        load_average_at_end: loadAtEnd,
        note: `busy share = CPUs busy outside the bench in 1 s; runs starting at >= ${BUSY_THRESHOLD} are flagged`,
      },
      settings,
      service_root: SERVICE_ROOT,
      standard_settings: changed.length === 0,
      service_env: {
        NODE_ENV: 'production',
        LOG_LEVEL: service.env.LOG_LEVEL,
        SEED_DEMO: 'false',
        ...BENCH_RATE_LIMITS,
      },
      seed: {
        events: partner.eventIds.length,
        ticket_types_per_event: 2,
        hold_contention_events: partner.holdEvents.length,
      },
      scenarios: Object.fromEntries(
        reports.map((r) => [r.name, { table: r.table, goals: r.goals, ...r.data }]),
      ),
      goals,
      failures,
    };
    writeFileSync(file, JSON.stringify(results, null, 2) + '\n');
    log(`\nwrote ${file}`);
    if (failures.length) return 2;
    return goals.some((g) => g.applies && !g.pass) ? 1 : 0;
  } finally {
    await cleanup();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(2);
  },
);
