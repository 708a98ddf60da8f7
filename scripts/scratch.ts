import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import pg from 'pg';

/** Throw-away databases and ports for the scripts that start real servers (hostile run, sqlmap scan, benches). */

export const PG_ADMIN_URL = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A brand-new database of `kind` (`sqlite` in a temporary directory, or PostgreSQL), named after `prefix`, and how to drop it. */
export async function freshDatabase(kind: string, prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  if (kind === 'sqlite') {
    const dir = await mkdtemp(`${tmpdir()}/${prefix}-`);
    return { url: `sqlite:${dir}/x.db`, drop: () => rm(dir, { recursive: true, force: true }) };
  }
  const name = `${prefix.replaceAll('-', '_')}_${randomBytes(6).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client(PG_ADMIN_URL);
    await client.connect();
    await client.query(sql).finally(() => client.end());
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/** A TCP port free on 127.0.0.1 right now. */
export async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  await new Promise((done) => probe.close(done));
  return port;
}
