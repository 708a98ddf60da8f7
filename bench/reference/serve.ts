/** Both hand-written stacks listen alike: PORT and HOST, and a clean stop (server, then pool) on SIGTERM or SIGINT. */
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';

export async function serve(app: FastifyInstance, pool: pg.Pool): Promise<void> {
  const close = async () => {
    await app.close();
    await pool.end();
    process.exit(0);
  };
  process.once('SIGTERM', close);
  process.once('SIGINT', close);
  await app.listen({ port: Number(process.env.PORT ?? 3000), host: process.env.HOST ?? '127.0.0.1' });
}
