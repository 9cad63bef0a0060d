// The retention settings: their defaults, and a bad value stopping the start with one line that
// names the variable, what it accepts and what it got.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { MAIN } from '../helpers/process.ts';
import { runNode } from '../helpers/release.ts';

const NAMES = ['RETENTION_BUYER_DATA_DAYS', 'RETENTION_WEBHOOK_DAYS', 'RETENTION_EXPIRED_DAYS'];

describe('retention settings', () => {
  test('default to 730 days of buyer data after an event, 90 of webhooks and 30 of what expired', () => {
    assert.deepEqual(loadConfig({ NODE_ENV: 'test' }).retention, {
      buyerDataDays: 730,
      webhookDays: 90,
      expiredDays: 30,
    });
  });

  test('each can be set in whole days', () => {
    const config = loadConfig({
      NODE_ENV: 'test',
      RETENTION_BUYER_DATA_DAYS: '365',
      RETENTION_WEBHOOK_DAYS: '7',
      RETENTION_EXPIRED_DAYS: '1',
    });
    assert.deepEqual(config.retention, { buyerDataDays: 365, webhookDays: 7, expiredDays: 1 });
  });

  const refused: [string, string, RegExp][] = [
    ['RETENTION_BUYER_DATA_DAYS', '0', /must be a positive whole number, at most 3650, got "0"/],
    ['RETENTION_BUYER_DATA_DAYS', '730.5', /must be a positive whole number, at most 3650/],
    ['RETENTION_BUYER_DATA_DAYS', 'forever', /must be a positive whole number, at most 3650, got "forever"/],
    ['RETENTION_BUYER_DATA_DAYS', '3651', /at most 3650/],
    // a failed delivery can still be retried by hand the week after
    ['RETENTION_WEBHOOK_DAYS', '6', /must be a whole number from 7 to 3650, got "6"/],
    ['RETENTION_WEBHOOK_DAYS', '-90', /must be a whole number from 7 to 3650/],
    ['RETENTION_EXPIRED_DAYS', '0', /must be a positive whole number, at most 3650/],
    ['RETENTION_EXPIRED_DAYS', '1e9', /at most 3650/],
  ];
  for (const [name, value, message] of refused) {
    test(`${name}=${value} is refused, naming the variable`, () => {
      assert.throws(
        () => loadConfig({ NODE_ENV: 'test', [name]: value }),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.message.startsWith(`${name} must be `) &&
          message.test(error.message),
      );
    });
  }

  test('a bad value stops the service at start with one line naming it', async () => {
    for (const name of NAMES) {
      const run = await runNode([MAIN], { NODE_ENV: 'test', DATA_DIR: 'memory://', [name]: 'soon' }, 60_000);
      assert.equal(run.code, 2, run.stderr);
      const lines = run.stderr.split('\n').filter((line) => line.startsWith('configuration error:'));
      assert.equal(lines.length, 1, run.stderr);
      assert.match(lines[0]!, new RegExp(`^configuration error: ${name} must be .+, got "soon" \\(`));
    }
  });
});
