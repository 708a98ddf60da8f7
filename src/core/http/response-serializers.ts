import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { onFirstUse } from '../validation/on-first-use.ts';
import { oncePerSchema } from '../validation/once-per-schema.ts';

const fastifyDefault = SerializerSelector();

/**
 * Fastify's own serializer builder (fast-json-stringify, as Fastify builds it by default), with each
 * response schema compiled once for every route and version that answers with it
 * (../validation/once-per-schema.ts says why), on the first answer that needs it
 * (../validation/on-first-use.ts). For the `schemaController.compilersFactory` option.
 */
export const buildSerializer: typeof fastifyDefault = (externalSchemas, options) => {
  const build = fastifyDefault(externalSchemas, options);
  return oncePerSchema((route) => onFirstUse(() => build(route)));
};
