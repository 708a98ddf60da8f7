import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { AppError } from '../errors/app-error.ts';

/** Liveness (the process answers) and readiness (the database answers too). */
export function registerHealth(app: FastifyInstance, db: Db): void {
  const config = { access: 'public', cacheControl: 'no-store' } as const;
  app.get('/healthz', { config, schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { config, schema: { hide: true } }, async () => {
    try {
      await sql`select 1`.execute(db);
    } catch {
      throw new AppError('SERVICE_UNAVAILABLE', 'The database is not reachable', { headers: { 'Retry-After': '5' } });
    }
    return { status: 'ready' };
  });
}
