// `npm run simulator`: the provider simulator on its own (MTN, Airtel, M-Pesa, Flutterwave's cards).
// SIMULATOR_PORT (default 4010), SIMULATOR_TIME_SCALE (default 1), SIMULATOR_AIRTEL_CALLBACK_URL and
// SIMULATOR_FLUTTERWAVE_WEBHOOK_URL (optional; the first may contain {reference}).
import { readVariable } from '../../config.ts';
import { createLogger } from '../../platform/index.ts';
import {
  DEFAULT_REFUND_SCENARIO,
  DEFAULT_SCENARIO,
  REFUND_SCENARIOS,
  SCENARIOS,
  testPhoneNumber,
} from './scenarios.ts';
import { TEST_CARDS, TEST_OTP } from './flutterwave-page.ts';
import { startSimulator } from './simulator.ts';

async function main(): Promise<void> {
  let options;
  try {
    options = {
      port: readVariable('SIMULATOR_PORT') ?? 4010,
      timeScale: readVariable('SIMULATOR_TIME_SCALE') ?? 1,
      airtelCallbackUrl: process.env.SIMULATOR_AIRTEL_CALLBACK_URL || undefined,
      flutterwaveWebhookUrl: process.env.SIMULATOR_FLUTTERWAVE_WEBHOOK_URL || undefined,
      log: createLogger(readVariable('LOG_LEVEL') ?? 'info'),
    };
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
  const sim = await startSimulator(options);
  // Object.values would put "10".."13" first (integer-like keys), hence the sort.
  const numbers = Object.values(SCENARIOS)
    .sort((a, b) => a.code.localeCompare(b.code))
    .map(
      (s) =>
        `  ${s.code}  MTN ${testPhoneNumber('momo', s.code)}  Airtel ${testPhoneNumber('airtel', s.code)}  M-Pesa ${testPhoneNumber('mpesa', s.code)}  ${s.summary}`,
    )
    .concat(`  ${DEFAULT_SCENARIO.summary}`)
    .join('\n');
  const refundNumbers = Object.values(REFUND_SCENARIOS)
    .map(
      (s) =>
        `  ${s.code}  MTN ${testPhoneNumber('momo', s.code)}  Airtel ${testPhoneNumber('airtel', s.code)}  M-Pesa ${testPhoneNumber('mpesa', s.code)}  ${s.summary}`,
    )
    .concat(`  ${DEFAULT_REFUND_SCENARIO.summary}`)
    .join('\n');
  const cards = TEST_CARDS.map((c) => `  ${c.number}  ${c.summary}`).join('\n');
  // Fixed, public test credentials: printing them is the point.
  process.stdout.write(
    [
      `Mobile money simulator listening on ${sim.url} (time scale ${options.timeScale})`,
      '',
      `MTN MoMo Collection   baseUrl ${sim.mtn.baseUrl}`,
      `  subscription key    ${sim.mtn.subscriptionKey}`,
      `  API user / key      ${sim.mtn.apiUser} / ${sim.mtn.apiKey}`,
      `  target environment  ${sim.mtn.targetEnvironment}`,
      `  Disbursement key    ${sim.mtn.disbursement?.subscriptionKey ?? sim.mtn.subscriptionKey} (refunds)`,
      `Airtel Money Open API baseUrl ${sim.airtel.baseUrl}`,
      `  client id / secret  ${sim.airtel.clientId} / ${sim.airtel.clientSecret}`,
      `  country / currency  ${sim.airtel.country} / ${sim.airtel.currency}`,
      `  callbacks to        ${options.airtelCallbackUrl ?? '(none: set SIMULATOR_AIRTEL_CALLBACK_URL)'}`,
      `M-Pesa (Daraja)       baseUrl ${sim.daraja.baseUrl}`,
      `  consumer key/secret ${sim.daraja.consumerKey} / ${sim.daraja.consumerSecret}`,
      `  shortcode / passkey ${sim.daraja.shortcode} / ${sim.daraja.passkey}`,
      `  transaction type    ${sim.daraja.transactionType} (KES, whole shillings)`,
      `Flutterwave (cards)   baseUrl ${sim.flutterwave.baseUrl}`,
      `  secret key / hash   ${sim.flutterwave.secretKey} / ${sim.flutterwave.secretHash}`,
      `  webhooks to         ${options.flutterwaveWebhookUrl ?? '(none: set SIMULATOR_FLUTTERWAVE_WEBHOOK_URL)'}`,
      '',
      'Test numbers (last two digits choose the outcome; MTN and Airtel in UGX, M-Pesa in KES):',
      numbers,
      '',
      'Refunds of a payment from these numbers (M-Pesa reverses the whole, pays a part back by B2C):',
      refundNumbers,
      '',
      `Test cards, typed on the simulator's card page (any future expiry, any CVV; the OTP is ${TEST_OTP}):`,
      cards,
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
