/**
 * The bare stack of `npm run bench` (issue 37; bench/README.md, "The bare stack"): what a user would
 * write instead of the service for W1–W4, and nothing more. Fastify 5, a `pg` Pool, Mercurius (jit,
 * loaders), the reference's SQL (bench/reference/). No token, rate limit, logger, ETag, totals, links,
 * metrics, validation or security headers.
 */
import Fastify from 'fastify';
import mercurius from 'mercurius';
import pg from 'pg';
import { graphqlOptions } from '../reference/graphql.ts';
import { productsParams, type ProductsQuery } from '../reference/products-params.ts';
import { findUser, productsPage } from '../reference/queries.ts';
import { serve } from '../reference/serve.ts';

const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DATABASE_POOL_SIZE ?? 10),
});
const app = Fastify();

app.get('/readyz', async () => ({ status: 'ready' }));

app.get<{ Params: { id: string } }>('/api/users/:id', async (request, reply) => {
  const { id } = request.params;
  const user = /^\d+$/.test(id) ? await findUser(pool, Number(id)) : undefined;
  return user ?? reply.code(404).send({ error: 'not found' });
});

// Just the page: no total, no links.
app.get<{ Querystring: ProductsQuery }>('/api/products', async (request, reply) => {
  const params = productsParams(request.query);
  if (!params) return reply.code(400).send({ error: 'unknown sort' });
  const rows = await productsPage(pool, params.filter, params.sort, params.limit, params.offset);
  return { data: rows.map((p) => ({ ...p, price: Number(p.price_cents) / 100 })), page: params.page };
});

await app.register(mercurius, { ...graphqlOptions(pool, { callers: false }), jit: 1 });

await serve(app, pool);
