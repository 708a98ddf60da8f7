import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { AppError } from '../errors/app-error.ts';
import { createMigrationGate, type MigrationGate } from './migration-gate.ts';

const draining = new WeakSet<FastifyInstance>();

/** From now on /readyz answers 503, so a load balancer stops sending new work (the server is shutting down). */
export function markDraining(app: FastifyInstance): void {
  draining.add(app);
}

/** Liveness (the process answers) and readiness (the database answers too, and it is not shutting down). */
export function registerHealth(app: FastifyInstance, db: Db, gate: MigrationGate = createMigrationGate()): void {
  const config = { access: 'public', cacheControl: 'no-store' } as const;
  // Once closing, a request arriving on a connection still open is refused in the error envelope
  // (Fastify's own 503 has another shape), and the connection is closed after the answer.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // Callback-style hooks here and in the other per-request hooks: an async hook costs a promise and
  // extra microtask turns on every request.
  app.addHook('onRequest', (_request, reply, done) => {
    if (!closing) return done();
    reply.header('connection', 'close');
    done(
      new AppError('SERVICE_UNAVAILABLE', 'The server is shutting down; retry', { headers: { 'Retry-After': '1' } }),
    );
  });
  app.get('/healthz', { config, schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { config, schema: { hide: true } }, async (_request, reply) => {
    // Not the error envelope: the operator's probe reads which migration runs and since when (DECISIONS §1).
    if (!gate.isOpen) return reply.code(503).header('retry-after', '5').send(gate.status);
    if (draining.has(app))
      throw new AppError('SERVICE_UNAVAILABLE', 'The server is shutting down', { headers: { 'Retry-After': '5' } });
    try {
      await sql`select 1`.execute(db);
    } catch {
      throw new AppError('SERVICE_UNAVAILABLE', 'The database is not reachable', { headers: { 'Retry-After': '5' } });
    }
    return { status: 'ready' };
  });
}
