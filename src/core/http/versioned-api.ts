import type { FastifyInstance } from 'fastify';
import { registerOpenApi, type OpenApiOptions } from '../openapi/openapi.plugin.ts';
import { API_PREFIXES, registerApiVersioning, setTableVersion, type VersioningOptions } from './versioning.ts';

/*
 * API registration, apart from version choice (versioning.ts) and the OpenAPI document
 * (../openapi/): imports run one way, this file → openapi → versioning.
 */

/**
 * Registers one route table under every version prefix. `registerApi` is the single place where
 * modules add their routes; it runs once per prefix, in its own encapsulated context, which knows its
 * version (`/api`, negotiated, none) so that a route of some versions only is left out of the others.
 */
export async function registerVersionedApi(
  app: FastifyInstance,
  registerApi: (api: FastifyInstance) => Promise<void>,
  options: VersioningOptions & OpenApiOptions,
): Promise<void> {
  registerApiVersioning(app, options);
  await registerOpenApi(app, options);
  for (const { prefix, version } of API_PREFIXES) {
    await app.register(
      async (api) => {
        setTableVersion(api, version);
        await registerApi(api);
      },
      { prefix },
    );
  }
}
