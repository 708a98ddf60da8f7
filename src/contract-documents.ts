import { buildSchema, printSchema } from 'graphql';
import { buildApp } from './app.ts';
import { loadConfig } from './config/config.ts';
import { createDatabase } from './core/db/database.ts';
import type { ApiVersion } from './core/http/versioning.ts';
import { typeDefs } from './graphql/schema.ts';

/**
 * The published contracts, generated from the code: the OpenAPI document of each REST version
 * (from the route schemas, through the app itself) and the GraphQL SDL. Used by `cli openapi`,
 * `cli schema`, the contract tests and `npm run contract:update`.
 */
export async function generateOpenApiDocuments(
  versions: readonly ApiVersion[] = [1, 2],
): Promise<Map<ApiVersion, Record<string, unknown>>> {
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: 'sqlite::memory:',
    LOG_LEVEL: 'silent',
    DEMO_DATA: 'false',
    REPORT_WORKER: 'false',
    JWT_SECRET: 'contract-generation-only-secret-0000000000',
  });
  // The document needs no data: the app is built over an empty in-memory database and never listens.
  const db = createDatabase(config.DATABASE_URL);
  try {
    const app = await buildApp(config, db);
    try {
      const documents = new Map<ApiVersion, Record<string, unknown>>();
      for (const version of versions) {
        const response = await app.http.inject({ method: 'GET', url: `/api/v${version}/openapi.json` });
        if (response.statusCode !== 200)
          throw new Error(`OpenAPI v${version}: HTTP ${response.statusCode} ${response.body}`);
        documents.set(version, response.json());
      }
      return documents;
    } finally {
      await app.http.close();
    }
  } finally {
    await db.destroy();
  }
}

/** The GraphQL schema as printed SDL (descriptions and `@deprecated` included). */
export function generateSdl(): string {
  return printSchema(buildSchema(typeDefs));
}
