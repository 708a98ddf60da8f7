/**
 * The framework's floor: a bare Fastify 5 app (no logger, no plugins, no hooks) answering the same
 * object as the ceiling through a response schema on `GET /api/users/:id`. What it costs beyond the
 * ceiling is what Fastify itself costs; what the service costs beyond it is the service's own work.
 */
import Fastify from 'fastify';
import { FIXED_USER } from './fixed-user.ts';

const user = FIXED_USER;
const properties = Object.fromEntries(
  Object.entries(user).map(([key, value]) => [key, { type: typeof value === 'number' ? 'number' : typeof value }]),
);

const app = Fastify({ logger: false });
app.get('/api/users/:id', { schema: { response: { 200: { type: 'object', properties } } } }, async () => user);
app.get('/readyz', async () => ({ status: 'ok' }));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
