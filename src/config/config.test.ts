import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { loadConfig } from './config.ts';

describe('configuration', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({});
    assert.equal(config.HOST, '127.0.0.1');
    assert.equal(config.PORT, 3000);
    assert.equal(config.DATABASE_URL, 'sqlite:./data/content.db');
    assert.equal(config.DEMO_DATA, true);
    assert.equal(config.ADMIN_EMAIL, 'admin@example.com');
    assert.equal(config.JWT_TTL_SECONDS, 900);
    assert.equal(config.STORE_CURRENCY, 'USD');
    assert.equal(config.COUNT_EXACT_LIMIT, 10000);
    // Every instance sweeps pending orders past their hold unless told not to (DECISIONS §3).
    assert.equal(config.ORDER_HOLD_WORKER, true);
    assert.equal(config.REPORT_WORKER, true);
    assert.equal(config.jwtSecretGenerated, true);
    assert.ok(config.jwtSecret.length >= 32);
  });

  it('defaults DEMO_DATA to false in production and keeps an explicit value', () => {
    const production = { NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32) };
    assert.equal(loadConfig(production).DEMO_DATA, false);
    assert.equal(loadConfig({ ...production, DEMO_DATA: 'true' }).DEMO_DATA, true);
    assert.equal(loadConfig({ NODE_ENV: 'test' }).DEMO_DATA, true);
  });

  it('runs the API and every background worker unless PROCESS_ROLE says api or worker (DECISIONS §16)', () => {
    assert.equal(loadConfig({}).PROCESS_ROLE, 'all');
    assert.equal(loadConfig({ PROCESS_ROLE: 'api' }).PROCESS_ROLE, 'api');
    assert.equal(loadConfig({ PROCESS_ROLE: 'worker' }).PROCESS_ROLE, 'worker');
    assert.throws(() => loadConfig({ PROCESS_ROLE: 'workers' }), {
      message: 'Invalid configuration: PROCESS_ROLE must be one of all, api, worker (got "workers")',
    });
  });

  it('holds pending orders 30 minutes by default and accepts a fraction of a minute', () => {
    assert.equal(loadConfig({}).ORDER_HOLD_MINUTES, 30);
    assert.equal(loadConfig({ ORDER_HOLD_MINUTES: '0.01' }).ORDER_HOLD_MINUTES, 0.01);
  });

  it('converts numbers and booleans from text', () => {
    const config = loadConfig({ PORT: '8080', DEMO_DATA: 'false', DATABASE_URL: 'postgres://u@h:5432/db' });
    assert.equal(config.PORT, 8080);
    assert.equal(config.DEMO_DATA, false);
    assert.equal(loadConfig({ COUNT_EXACT_LIMIT: '5' }).COUNT_EXACT_LIMIT, 5);
  });

  it('reads a number only from decimal text and a boolean from true/false or 1/0', () => {
    assert.equal(loadConfig({ PORT: ' 8080 ' }).PORT, 8080);
    assert.equal(loadConfig({ ORDER_HOLD_MINUTES: '.5' }).ORDER_HOLD_MINUTES, 0.5);
    assert.equal(loadConfig({ COUNT_EXACT_LIMIT: '1e3' }).COUNT_EXACT_LIMIT, 1000);
    assert.equal(loadConfig({ DEMO_DATA: 'TRUE' }).DEMO_DATA, true);
    assert.equal(loadConfig({ DEMO_DATA: '0' }).DEMO_DATA, false);
    // No hexadecimal, and no fraction cut off an integer: each is named, not read as something else.
    assert.throws(
      () => loadConfig({ PORT: '0x10' }),
      /^Error: Invalid configuration: PORT must be integer \(got "0x10"\)$/,
    );
    assert.throws(() => loadConfig({ PORT: '8080.5' }), /^Error: Invalid configuration: PORT must be integer/);
    assert.throws(() => loadConfig({ PORT: 'true' }), /^Error: Invalid configuration: PORT must be integer/);
    assert.throws(() => loadConfig({ DEMO_DATA: 'yes' }), /^Error: Invalid configuration: DEMO_DATA must be boolean/);
    // A very long value is named at once, not after the pattern tries every split of its digits (seconds;
    // the bound is a thousand times what it takes).
    const started = performance.now();
    assert.throws(
      () => loadConfig({ PORT: `${'1'.repeat(100_000)}x` }),
      /^Error: Invalid configuration: PORT must be integer/,
    );
    assert.ok(performance.now() - started < 1000, `${Math.round(performance.now() - started)} ms`);
  });

  it('names the variable of a wrong value in one line', () => {
    for (const [env, name] of [
      [{ PORT: 'abc' }, 'PORT'],
      [{ PORT: '70000' }, 'PORT'],
      [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
      [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
      [{ DEMO_DATA: 'maybe' }, 'DEMO_DATA'],
      [{ JWT_SECRET: 'short' }, 'JWT_SECRET'],
      [{ STORE_CURRENCY: 'dollars' }, 'STORE_CURRENCY'],
      [{ METRICS_PORT: '3000' }, 'METRICS_PORT'],
      [{ ORDER_HOLD_MINUTES: '0' }, 'ORDER_HOLD_MINUTES'],
      [{ ORDER_HOLD_MINUTES: 'soon' }, 'ORDER_HOLD_MINUTES'],
      [{ COUNT_EXACT_LIMIT: '-1' }, 'COUNT_EXACT_LIMIT'],
      [{ COUNT_EXACT_LIMIT: 'many' }, 'COUNT_EXACT_LIMIT'],
    ] as const) {
      assert.throws(
        () => loadConfig(env),
        (error: Error) => {
          assert.match(error.message, new RegExp(`^Invalid configuration: ${name} `));
          assert.doesNotMatch(error.message, /\n/);
          return true;
        },
      );
    }
  });

  it('refuses production without a JWT secret', () => {
    assert.throws(
      () => loadConfig({ NODE_ENV: 'production' }),
      /JWT_SECRET or JWT_JWKS_URL must be set when NODE_ENV=production/,
    );
    assert.equal(loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32) }).jwtSecretGenerated, false);
  });

  it('stops the process with one clear line and no stack trace', () => {
    const result = spawnSync(process.execPath, ['src/cli.ts', 'serve'], {
      env: { ...process.env, PORT: 'not-a-port' },
      encoding: 'utf8',
      timeout: 90_000,
    });
    assert.equal(result.status, 1);
    assert.equal(result.stderr.trim(), 'Invalid configuration: PORT must be integer (got "not-a-port")');
  });
});
