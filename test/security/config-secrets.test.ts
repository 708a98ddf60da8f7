import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config/config.ts';

/** A configuration error names the variable and the rule; it never prints a secret (logs are read by many). */
describe('configuration errors and secrets', () => {
  const messageOf = (env: Record<string, string>): string => {
    try {
      loadConfig(env);
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error('the configuration was accepted');
  };

  it('names JWT_SECRET and its rule without echoing a short secret', () => {
    const secret = 'hunter2-but-short';
    const message = messageOf({ JWT_SECRET: secret });
    assert.match(message, /^Invalid configuration: JWT_SECRET .*32/);
    assert.ok(!message.includes(secret), message);
    assert.ok(!message.includes('hunter2'), message);
  });

  it('does not echo a short ADMIN_PASSWORD either', () => {
    const message = messageOf({ ADMIN_PASSWORD: 'pw-123' });
    assert.match(message, /^Invalid configuration: ADMIN_PASSWORD .*8/);
    assert.ok(!message.includes('pw-123'), message);
  });

  it('masks the password of a wrong DATABASE_URL or REDIS_URL but shows the rest', () => {
    const database = messageOf({ DATABASE_URL: 'mysql://app:s3cr3t-pw@db.internal:3306/content' });
    assert.match(database, /^Invalid configuration: DATABASE_URL /);
    assert.ok(!database.includes('s3cr3t-pw'), database);
    assert.match(database, /mysql:\/\/app:\*\*\*@db\.internal:3306\/content/);
    const redis = messageOf({ REDIS_URL: 'http://:redis-pw@cache:6379' });
    assert.ok(!redis.includes('redis-pw'), redis);
  });

  it('still shows a harmless wrong value, so a typo is easy to find', () => {
    assert.equal(messageOf({ PORT: 'not-a-port' }), 'Invalid configuration: PORT must be integer (got "not-a-port")');
  });
});
