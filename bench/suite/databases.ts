import { mkdirSync, rmSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { resolve } from 'node:path';
import pg from 'pg';
import { runCli } from './processes.ts';

export type Dialect = 'sqlite' | 'postgres';

const PG_ADMIN_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const BENCH_DIR = 'data/bench';

export interface BenchDatabase {
  dialect: Dialect;
  url: string;
  drop(): Promise<void>;
}

async function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A brand-new, empty database of the dialect, named after this run; `drop` removes it. */
export async function createBenchDatabase(dialect: Dialect): Promise<BenchDatabase> {
  const name = `bench_${process.pid}_${Date.now().toString(36)}`;
  if (dialect === 'sqlite') {
    mkdirSync(BENCH_DIR, { recursive: true });
    const file = `${BENCH_DIR}/${name}.db`;
    return {
      dialect,
      url: `sqlite:${resolve(file)}`,
      async drop() {
        for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
      },
    };
  }
  await withAdmin((client) => client.query(`create database ${name}`));
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    dialect,
    url: url.toString(),
    async drop() {
      await withAdmin((client) => client.query(`drop database if exists ${name} with (force)`));
    },
  };
}

/**
 * The standard data set, through the CLI `seed` command with its defaults (deterministic, seed 42), of
 * this checkout or of another one (`dir`).
 */
export function seedStandardData(url: string, dir?: string): void {
  runCli(['seed'], { DATABASE_URL: url, DEMO_DATA: 'false' }, dir);
}

/** Mints one access token with the CLI, as an operator would (`token --user ID` with JWT_SECRET). */
export function mintToken(url: string, userId: number, env: Record<string, string>, dir?: string): string {
  return runCli(['token', '--user', String(userId)], { ...env, DATABASE_URL: url }, dir).trim();
}

/** Runs SQL text on a bench database (a side's setup, e.g. triggers switched off to measure what they cost). */
export async function runSql(url: string, sql: string): Promise<void> {
  if (url.startsWith('sqlite:')) {
    const db = new DatabaseSync(url.slice('sqlite:'.length));
    try {
      db.exec(sql);
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
