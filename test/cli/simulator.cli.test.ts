// `npm run simulator` as a developer runs it: its listing names M-Pesa's Daraja settings and, for
// every scenario, an M-Pesa test number beside MTN's and Airtel's that the simulator reads as that
// scenario; refunds list MTN and Airtel only, since M-Pesa payments are not refunded here yet.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SIMULATOR_CREDENTIALS } from '../../src/payments/simulator/simulator.ts';
import { SCENARIOS, scenarioFor } from '../../src/payments/simulator/scenarios.ts';

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
    while (!/not refunded through the service yet\)\n/.test(out) && Date.now() < deadline) {
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
  const { mpesa } = SIMULATOR_CREDENTIALS;
  assert.match(out, /M-Pesa \(Daraja\) +baseUrl http:\/\/127\.0\.0\.1:\d+\/mpesa\n/);
  assert.ok(out.includes(`${mpesa.consumerKey} / ${mpesa.consumerSecret}`), out);
  assert.ok(out.includes(`${mpesa.shortcode} / ${mpesa.passkey}`), out);

  const [payments, refunds] = out.split('Refunds of an MTN or Airtel payment');
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
  assert.doesNotMatch(refunds!, /M-Pesa 07/);
  assert.match(refunds!, /\(M-Pesa payments are not refunded through the service yet\)/);
});
