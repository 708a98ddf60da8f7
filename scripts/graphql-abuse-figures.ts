/**
 * The figures of docs/SECURITY.md "GraphQL abuse": the service started as `npm start` starts it
 * (production, load shedding on), once per database; the 30-level fragment fan-out sent anonymously
 * and signed in (each a new text), then 20 at once while /healthz is probed.
 *
 *   node scripts/graphql-abuse-figures.ts [--rounds 10]
 */
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { serverArgs } from '../bench/suite/server-command.ts';

const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 10;
const PG_ADMIN = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ADMIN = { email: 'admin@example.com', password: 'figures-admin-password' };

function fanOut(levels: number): string {
  let document = 'fragment F0 on User { id name }\n';
  for (let i = 1; i < levels; i += 1) document += `fragment F${i} on User { ...F${i - 1} ...F${i - 1} }\n`;
  return `${document}{ user(id: 1) { ...F${levels - 1} } }\n# ${randomUUID()}`;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const max = (values: number[]) => Math.max(...values);

async function start(databaseUrl: string): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, serverArgs(), {
    env: {
      ...process.env,
      NODE_ENV: 'production',
      PORT: '0',
      DATABASE_URL: databaseUrl,
      JWT_SECRET: randomBytes(24).toString('hex'),
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(line);
      if (match?.[1]) resolve(match[1]);
    });
  });
  while ((await fetch(`${url}/readyz`)).status !== 200) await new Promise((r) => setTimeout(r, 100));
  return {
    url,
    async stop() {
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

async function post(url: string, query: string, token?: string): Promise<{ ms: number; guard: unknown }> {
  const started = performance.now();
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query }),
  });
  const body = (await response.json()) as { errors?: { extensions?: { guard?: unknown } }[] };
  return { ms: performance.now() - started, guard: body.errors?.[0]?.extensions?.guard };
}

async function measure(name: string, databaseUrl: string): Promise<void> {
  const server = await start(databaseUrl);
  try {
    const signIn = await fetch(`${server.url}/api/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    const token = ((await signIn.json()) as { access_token: string }).access_token;
    await post(server.url, '{ __typename }');
    for (const [caller, bearer] of [
      ['anonymous', undefined],
      ['signed in', token],
    ] as const) {
      const times: number[] = [];
      for (let i = 0; i < rounds; i += 1) {
        const answer = await post(server.url, fanOut(30), bearer);
        if (answer.guard !== 'fields') throw new Error(`not refused by the fields guard: ${String(answer.guard)}`);
        times.push(answer.ms);
      }
      console.log(
        `${name}: 30-level fan-out, ${caller}: median ${median(times).toFixed(1)} ms, max ${max(times).toFixed(1)} ms (${rounds} requests)`,
      );
    }
    const slowestProbe: number[] = [];
    for (let i = 0; i < rounds; i += 1) {
      const attacks = Array.from({ length: 20 }, (_, k) => post(server.url, fanOut(30), k % 2 ? token : undefined));
      const probe = (async () => {
        const started = performance.now();
        const response = await fetch(`${server.url}/healthz`);
        await response.text();
        return performance.now() - started;
      })();
      await Promise.all(attacks);
      slowestProbe.push(await probe);
    }
    console.log(
      `${name}: /healthz with 20 fan-outs in flight: median ${median(slowestProbe).toFixed(1)} ms, max ${max(slowestProbe).toFixed(1)} ms (${rounds} rounds)`,
    );
  } finally {
    await server.stop();
  }
}

console.log(`load average at start: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
const dir = mkdtempSync(`${tmpdir()}/abuse-figures-`);
try {
  await measure('SQLite', `sqlite:${dir}/figures.db`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const database = `abuse_figures_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: PG_ADMIN });
await admin.connect();
await admin.query(`create database ${database}`);
try {
  await measure('PostgreSQL', PG_ADMIN.replace(/\/[^/]*$/, `/${database}`));
} finally {
  await admin.query(`drop database if exists ${database} with (force)`);
  await admin.end();
}
console.log(`load average at end: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
