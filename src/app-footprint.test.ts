import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';

/**
 * Builds the app in a child process that records every package it loads (module.registerHooks), then
 * prints the packages under test that were loaded.
 */
function packagesLoadedByBuildingTheApp(env: Record<string, string>): string[] {
  const script = `
    import { registerHooks } from 'node:module';
    const loaded = new Set();
    registerHooks({
      resolve(specifier, context, next) {
        const result = next(specifier, context);
        const match = /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(result.url);
        if (match) loaded.add(match[1]);
        return result;
      },
    });
    const { loadConfig } = await import('./src/config/config.ts');
    const { createDatabase } = await import('./src/core/db/database.ts');
    const { buildApp } = await import('./src/app.ts');
    const config = loadConfig({ DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'silent', JWT_SECRET: 'x'.repeat(40), ...${JSON.stringify(env)} });
    const db = createDatabase(config.DATABASE_URL);
    const app = await buildApp(config, db);
    await app.http.close();
    await db.destroy();
    console.log(JSON.stringify([...loaded].filter((name) => ['undici', '@nats-io/transport-node', '@nats-io/jetstream'].includes(name))));
  `;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr);
  return JSON.parse(child.stdout.trim().split('\n').at(-1)!) as string[];
}

describe("the app's footprint", () => {
  it('loads neither the NATS client nor undici (the webhook sender) until they are used', () => {
    // Each held megabytes of heap from the start (bench/RESULTS.md, session 18): NATS without NATS_URL
    // is never used, undici only when the first webhook delivery is sent.
    assert.deepEqual(packagesLoadedByBuildingTheApp({ NATS_URL: '' }), []);
  });
});
