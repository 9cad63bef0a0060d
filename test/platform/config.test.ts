// Configuration of the PostgreSQL connections: defaults follow WRITE_CONCURRENCY, bad values fail at
// start naming the variable.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('database connections', () => {
  test('default: 2 for reads, WRITE_CONCURRENCY + 2 for transactions', () => {
    assert.deepEqual(loadConfig({ NODE_ENV: 'test' }).databaseConnections, { reads: 2, transactions: 34 });
    assert.deepEqual(loadConfig({ NODE_ENV: 'test', WRITE_CONCURRENCY: '8' }).databaseConnections, {
      reads: 2,
      transactions: 10,
    });
  });

  test('each size can be set', () => {
    const config = loadConfig({
      NODE_ENV: 'test',
      DATABASE_READ_CONNECTIONS: '4',
      DATABASE_TRANSACTION_CONNECTIONS: '50',
    });
    assert.deepEqual(config.databaseConnections, { reads: 4, transactions: 50 });
  });

  test('a size that is not a positive number fails at start naming the variable', () => {
    for (const name of ['DATABASE_READ_CONNECTIONS', 'DATABASE_TRANSACTION_CONNECTIONS']) {
      for (const value of ['0', '-3', 'many']) {
        assert.throws(
          () => loadConfig({ NODE_ENV: 'test', [name]: value }),
          (error: unknown) => error instanceof ConfigError && error.message.includes(name),
          `${name}=${value}`,
        );
      }
    }
  });
});
