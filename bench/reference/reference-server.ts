/**
 * The hand-written reference of `npm run bench` (bench/README.md): what a minimal Fastify 5 + pg app
 * does for W1–W4 on the same seeded PostgreSQL database. One route per REST workload, Mercurius
 * (jit, loaders) for the GraphQL ones, a `jose` check of the same HS256 bearer token on every
 * request, a pool of 10 connections, one access-log line per request at LOG_LEVEL (default info).
 * No rate limits, ETags, metrics, validation schemas or security headers.
 */
import Fastify from 'fastify';
import { jwtVerify } from 'jose';
import mercurius from 'mercurius';
import pg from 'pg';
import pino from 'pino';
import { graphqlOptions, type Caller } from './graphql.ts';
import { productsParams, type ProductsQuery } from './products-params.ts';
import { findUser, listProducts, type UserRow } from './queries.ts';
import { serve } from './serve.ts';

const env = (name: string) =>
  process.env[name] ??
  (() => {
    throw new Error(`${name} is required`);
  })();
const pool = new pg.Pool({ connectionString: env('DATABASE_URL'), max: Number(process.env.DATABASE_POOL_SIZE ?? 10) });
const secret = new TextEncoder().encode(env('JWT_SECRET'));
const level = process.env.LOG_LEVEL ?? 'info';

const app = Fastify({
  logger: level === 'silent' ? false : { level, stream: pino.destination({ sync: false }) },
  // One line per answer (as the service), not Fastify's two.
  disableRequestLogging: true,
});
app.addHook('onResponse', async (request, reply) => {
  request.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
});

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller;
  }
}
app.decorateRequest('caller', null as unknown as Caller);
app.addHook('onRequest', async (request, reply) => {
  if (request.url === '/readyz') return;
  const token = request.headers.authorization?.startsWith('Bearer ') ? request.headers.authorization.slice(7) : '';
  try {
    const { payload } = await jwtVerify(token, secret, {
      algorithms: ['HS256'],
      issuer: 'content-service',
      audience: 'content-service',
    });
    request.caller = { id: Number(payload.sub), admin: payload.role === 'admin' };
  } catch {
    return reply.code(401).send({ error: 'unauthorized' });
  }
});

app.get('/readyz', async () => ({ status: 'ready' }));

function userView(user: UserRow, caller: Caller) {
  const self = `/api/users/${user.id}`;
  return {
    id: user.id,
    name: user.name,
    // Another user's email is hidden (null in REST, as the service) unless the caller is an admin.
    email: caller.admin || caller.id === user.id ? user.email : null,
    age: user.age,
    role: user.role,
    status: user.status,
    emailVerified: user.email_verified,
    createdAt: user.created_at,
    updatedAt: user.updated_at,
    _links: {
      self: { href: self },
      posts: { href: `${self}/posts` },
      avatar: { href: `${self}/avatar` },
      update: { href: self, method: 'PATCH' },
      delete: { href: self, method: 'DELETE' },
    },
  };
}

app.get<{ Params: { id: string } }>('/api/users/:id', async (request, reply) => {
  const { id } = request.params;
  const user = /^\d+$/.test(id) ? await findUser(pool, Number(id)) : undefined;
  return user
    ? userView(user, request.caller)
    : reply.code(404).send({ error: { code: 'NOT_FOUND', message: `User ${id} not found` } });
});

app.get<{ Querystring: ProductsQuery }>('/api/products', async (request, reply) => {
  const params = productsParams(request.query);
  if (!params) return reply.code(400).send({ error: 'unknown sort' });
  const { page, limit } = params;
  const { rows, total } = await listProducts(pool, params.filter, params.sort, limit, params.offset);
  const data = rows.map((p) => ({
    id: p.id,
    name: p.name,
    category: p.category,
    price: Number(p.price_cents) / 100,
    stock: p.stock,
    image: p.image,
    description: p.description,
    created_at: p.created_at,
    updatedAt: p.updated_at,
    _links: { self: { href: `/api/products/${p.id}` } },
  }));
  const pagination = {
    page,
    limit,
    total,
    totalPages: Math.ceil(total / limit),
    hasNext: page * limit < total,
    hasPrev: page > 1,
  };
  return { data, pagination };
});

await app.register(mercurius, { ...graphqlOptions(pool), jit: 1, context: (request) => ({ caller: request.caller }) });

await serve(app, pool);
