import type { FastifyInstance } from 'fastify';
import { registerOpenApi, type OpenApiOptions } from '../openapi/openapi.plugin.ts';
import { API_PREFIXES, registerApiVersioning, type VersioningOptions } from './versioning.ts';

/*
 * API registration, apart from version choice (versioning.ts) and the OpenAPI document
 * (../openapi/): imports run one way, this file → openapi → versioning.
 */

/**
 * Registers one route table under every version prefix. `registerApi` is the single place where
 * modules add their routes; it runs once per prefix, in its own encapsulated context.
 */
export async function registerVersionedApi(
  app: FastifyInstance,
  registerApi: (api: FastifyInstance) => Promise<void>,
  options: VersioningOptions & OpenApiOptions,
): Promise<void> {
  registerApiVersioning(app, options);
  await registerOpenApi(app, options);
  for (const { prefix } of API_PREFIXES) {
    await app.register(async (api) => registerApi(api), { prefix });
  }
}
