import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';

/** Node's own copy of undici (its global `fetch` and `WebSocket`), and the modules it brings along. */
const NODE_FETCH = 'NativeModule internal/deps/undici/undici';

interface Footprint {
  /** The packages under test that were loaded. */
  packages: string[];
  /** Whether Node's built-in fetch and WebSocket were loaded. */
  nodeFetch: boolean;
  /** Whether TypeBox's `Value` (conversion, defaults, errors: 140 modules) was loaded. */
  typeboxValue: boolean;
  /** Buffers (bytes) that building the app took. */
  built: number;
  /** The first request for the GraphiQL build: its status and size. */
  graphiql: { status: number; bytes: number };
}

/**
 * Loads the server's modules and builds the app (without NATS_URL) in a child process that records every
 * package it loads (module.registerHooks) and the buffers the build takes, then asks for the GraphiQL
 * page's largest file and prints what it saw. Run once for the suites below.
 */
function footprintOfBuildingTheApp(): Footprint {
  const script = `
    import { registerHooks } from 'node:module';
    const loaded = new Set();
    let typeboxValue = false;
    registerHooks({
      resolve(specifier, context, next) {
        const result = next(specifier, context);
        if (result.url.includes('/node_modules/typebox/build/value/')) typeboxValue = true;
        const match = /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(result.url);
        if (match) loaded.add(match[1]);
        return result;
      },
    });
    const { loadConfig } = await import('./src/config/config.ts');
    const { createDatabase } = await import('./src/core/db/database.ts');
    const { buildApp } = await import('./src/app.ts');
    const { graphiqlFiles, GRAPHIQL_ASSETS_PREFIX } = await import('./src/graphql/graphiql-assets.ts');
    await import('./src/server.ts');
    const config = loadConfig({ DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'silent', JWT_SECRET: 'x'.repeat(40), NATS_URL: '' });
    const db = createDatabase(config.DATABASE_URL);
    const atStart = process.memoryUsage().arrayBuffers;
    const app = await buildApp(config, db);
    const built = process.memoryUsage().arrayBuffers - atStart;
    const packages = [...loaded].filter((name) => ['undici', '@nats-io/transport-node', '@nats-io/jetstream'].includes(name));
    const largest = graphiqlFiles().scripts.find((name) => name.startsWith('graphiql-'));
    const response = await app.http.inject({ method: 'GET', url: GRAPHIQL_ASSETS_PREFIX + largest });
    await app.http.close();
    await db.destroy();
    console.log(JSON.stringify({
      packages,
      nodeFetch: process.moduleLoadList.includes(${JSON.stringify(NODE_FETCH)}),
      typeboxValue,
      built,
      graphiql: { status: response.statusCode, bytes: response.rawPayload.length },
    }));
  `;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr);
  return JSON.parse(child.stdout.trim().split('\n').at(-1)!) as Footprint;
}

let measured: Footprint | undefined;
const footprint = () => (measured ??= footprintOfBuildingTheApp());

describe("the app's footprint", () => {
  it('loads neither the NATS client nor undici (the webhook sender) until they are used', () => {
    // Each held megabytes of heap from the start (the bench journal (git show b3694ab:bench/journal/2026-11.md), session 18): NATS without NATS_URL
    // is never used, undici only when the first webhook delivery is sent.
    assert.deepEqual(footprint().packages, []);
  });

  it("does not load Node's built-in fetch and WebSocket, which it never uses", () => {
    // An ESM import of 'node:http' builds the module's namespace from every export, and the lazy
    // `WebSocket` export loads Node's copy of undici with web streams: 5-12 MB more RSS at rest and
    // under load (the bench journal (git show b3694ab:bench/journal/2026-11.md), session 23). metrics-server.ts takes node:http by getBuiltinModule.
    assert.equal(footprint().nodeFetch, false);
  });

  it("reads its configuration without TypeBox's Value module", () => {
    // Ajv, loaded for the requests anyway, checks the environment (config.ts): Value's 140 modules held
    // 2.4 MB of heap for that alone (the bench journal (git show b3694ab:bench/journal/2026-11.md), session 23).
    assert.equal(footprint().typeboxValue, false);
  });
});

describe("the GraphiQL page's files", () => {
  it('are read on the first request for them, not when the app is built', () => {
    // The UMD builds of React, ReactDOM and GraphiQL (1.5 MB of buffers) stay on disk until asked for.
    const { built, graphiql } = footprint();
    assert.equal(graphiql.status, 200);
    assert.ok(graphiql.bytes > 500_000, `the GraphiQL build is ${graphiql.bytes} bytes`);
    assert.ok(built < graphiql.bytes / 2, `building the app took ${built} bytes of buffers`);
  });
});
