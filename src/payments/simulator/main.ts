// `npm run simulator`: the provider simulator on its own, every method's part of it.
// SIMULATOR_PORT (default 4010), SIMULATOR_TIME_SCALE (default 1), and each part's variable for the
// callbacks its provider keeps registered (optional; e.g. SIMULATOR_AIRTEL_CALLBACK_URL, which may
// contain {reference}).
import { readVariable } from '../../config.ts';
import { createLogger } from '../../platform/index.ts';
import { PAYMENT_METHOD_REGISTRY, type PaymentMethodDefinition } from '../methods/registry.ts';
import { DEFAULT_REFUND_SCENARIO, DEFAULT_SCENARIO, REFUND_SCENARIOS, SCENARIOS } from './scenarios.ts';
import { startSimulator } from './simulator.ts';

const methods: readonly PaymentMethodDefinition[] = PAYMENT_METHOD_REGISTRY;

async function main(): Promise<void> {
  let options;
  try {
    const callbackUrls = Object.fromEntries(
      methods.flatMap(({ key, simulator }) => {
        const variable = simulator.registeredCallback?.variable;
        const value = variable ? process.env[variable] : undefined;
        return value ? [[key, value]] : [];
      }),
    );
    options = {
      methods,
      port: readVariable('SIMULATOR_PORT') ?? 4010,
      timeScale: readVariable('SIMULATOR_TIME_SCALE') ?? 1,
      callbackUrls,
      log: createLogger(readVariable('LOG_LEVEL') ?? 'info'),
    };
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
  const sim = await startSimulator(options);
  const numbered = methods.flatMap((m) => (m.testNumber ? [{ ...m, testNumber: m.testNumber }] : []));
  const numbersOf = (code: string) =>
    numbered.map((m) => `${m.simulator.label} ${m.testNumber(code)}`).join('  ');
  // Object.values would put "10".."13" first (integer-like keys), hence the sort.
  const numbers = Object.values(SCENARIOS)
    .sort((a, b) => a.code.localeCompare(b.code))
    .map((s) => `  ${s.code}  ${numbersOf(s.code)}  ${s.summary}`)
    .concat(`  ${DEFAULT_SCENARIO.summary}`)
    .join('\n');
  const refundNumbers = Object.values(REFUND_SCENARIOS)
    .map((s) => `  ${s.code}  ${numbersOf(s.code)}  ${s.summary}`)
    .concat(`  ${DEFAULT_REFUND_SCENARIO.summary}`)
    .join('\n');
  // "MTN and Airtel in UGX, M-Pesa in KES": the methods of each currency together.
  const byCurrency = new Map<string, string[]>();
  for (const m of numbered) {
    const currency = m.currencies.join(', ');
    byCurrency.set(currency, [...(byCurrency.get(currency) ?? []), m.simulator.label]);
  }
  const currencies = [...byCurrency]
    .map(([currency, labels]) => `${labels.join(' and ')} in ${currency}`)
    .join(', ');
  const refundNotes = methods.flatMap((m) => (m.simulator.refundNote ? [m.simulator.refundNote] : []));
  const notes = methods.flatMap((m) => (m.simulator.notes ? ['', ...m.simulator.notes] : []));
  // Fixed, public test credentials: printing them is the point.
  process.stdout.write(
    [
      `Payment simulator listening on ${sim.url} (time scale ${options.timeScale})`,
      '',
      ...methods.flatMap(({ key, simulator }) =>
        simulator.listing(simulator.settings(sim.url), options.callbackUrls[key]),
      ),
      '',
      `Test numbers (last two digits choose the outcome; ${currencies}):`,
      numbers,
      '',
      `Refunds of a payment from these numbers${refundNotes.length ? ` (${refundNotes.join('; ')})` : ''}:`,
      refundNumbers,
      ...notes,
      '',
    ].join('\n'),
  );
  const stop = () => {
    void sim.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

await main();
