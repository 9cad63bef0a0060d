// `npm run simulator` as a developer runs it: its listing names M-Pesa's Daraja settings and, for
// every scenario, an M-Pesa test number beside MTN's and Airtel's that the simulator reads as that
// scenario; refunds list an M-Pesa number per refund scenario too, read by the simulator as such.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  DEFAULT_REFUND_SCENARIO,
  REFUND_SCENARIOS,
  SCENARIOS,
  refundScenarioFor,
  scenarioFor,
} from '../../src/payments/simulator/scenarios.ts';
import { MPESA_SIM_CREDENTIALS } from '../../src/payments/methods/mpesa/sim-credentials.ts';

const MAIN = fileURLToPath(new URL('../../src/payments/simulator/main.ts', import.meta.url));

/** The simulator's printed listing, up to its last line, after which it is stopped. */
async function listing(): Promise<string> {
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, SIMULATOR_PORT: '0', LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const deadline = Date.now() + 30_000;
    // The default refund outcome is the listing's last line.
    while (!out.includes(`  ${DEFAULT_REFUND_SCENARIO.summary}\n`) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return out;
  } finally {
    // How it stops is test/payments/simulator.test.ts's: here only what it printed counts.
    child.kill('SIGTERM');
    await exited;
  }
}

test('npm run simulator lists M-Pesa: its Daraja settings and a test number per scenario', async () => {
  const out = await listing();
  const mpesa = MPESA_SIM_CREDENTIALS;
  assert.match(out, /M-Pesa \(Daraja\) +baseUrl http:\/\/127\.0\.0\.1:\d+\/mpesa\n/);
  assert.ok(out.includes(`${mpesa.consumerKey} / ${mpesa.consumerSecret}`), out);
  assert.ok(out.includes(`${mpesa.shortcode} / ${mpesa.passkey}`), out);

  const [payments, refunds] = out.split('Refunds of a payment from these numbers');
  assert.ok(refunds, out);
  for (const scenario of Object.values(SCENARIOS)) {
    const line = new RegExp(
      `^ {2}${scenario.code} {2}MTN 07700000${scenario.code} {2}Airtel 07000000${scenario.code} {2}M-Pesa (\\d{10}) {2}`,
      'm',
    ).exec(payments!);
    assert.ok(line, `no line for scenario ${scenario.code}:\n${payments}`);
    // The printed number is one the simulator's Daraja reads as this very scenario.
    assert.equal(scenarioFor(line[1]!).code, scenario.code, line[0]);
    assert.equal(scenarioFor(`254${line[1]!.slice(1)}`).code, scenario.code, line[0]);
  }
});

test('npm run simulator lists an M-Pesa number per refund scenario, beside MTN and Airtel', async () => {
  const out = await listing();
  const refunds = out.split('Refunds of a payment from these numbers')[1];
  assert.ok(refunds, out);
  assert.match(refunds, /M-Pesa reverses the whole, pays a part back by B2C/);
  for (const scenario of Object.values(REFUND_SCENARIOS)) {
    const line = new RegExp(
      `^ {2}${scenario.code} {2}MTN 07700000${scenario.code} {2}Airtel 07000000${scenario.code} {2}M-Pesa (\\d{10}) {2}${scenario.summary}$`,
      'm',
    ).exec(refunds);
    assert.ok(line, `no refund line for scenario ${scenario.code}:\n${refunds}`);
    // A payment from the printed number is refunded as this very scenario.
    assert.equal(refundScenarioFor(line[1]!).code, scenario.code, line[0]);
    assert.equal(refundScenarioFor(`254${line[1]!.slice(1)}`).code, scenario.code, line[0]);
  }
  assert.match(refunds, new RegExp(`^ {2}${DEFAULT_REFUND_SCENARIO.summary}$`, 'm'));
});
