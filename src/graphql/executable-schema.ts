import { buildSchema, isObjectType, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';

export type ResolverMap = Record<string, Record<string, unknown>>;

/**
 * The schema of an SDL with its resolvers set on its fields (graphql-js' public field config: `resolve`,
 * and `subscribe` for a subscription root field given as `{ subscribe, resolve }`). A resolver for a type
 * or field the SDL lacks is a start-up error, not a silent no-op.
 */
export function executableSchema(typeDefs: string, resolvers: ResolverMap): GraphQLSchema {
  return withResolvers(buildSchema(typeDefs), resolvers);
}

/** Sets resolvers on the fields of a built schema (a later call wins for a field both set). */
export function withResolvers(schema: GraphQLSchema, resolvers: ResolverMap): GraphQLSchema {
  for (const [typeName, fields] of Object.entries(resolvers)) {
    const type = schema.getType(typeName);
    if (!isObjectType(type)) throw new Error(`resolvers: ${typeName} is not an object type of the schema`);
    const definitions = type.getFields();
    for (const [fieldName, resolver] of Object.entries(fields)) {
      const field = definitions[fieldName];
      if (!field) throw new Error(`resolvers: ${typeName}.${fieldName} is not in the schema`);
      if (typeof resolver === 'function') field.resolve = resolver as GraphQLFieldResolver<unknown, unknown>;
      else {
        const { resolve, subscribe } = resolver as {
          resolve?: GraphQLFieldResolver<unknown, unknown>;
          subscribe?: GraphQLFieldResolver<unknown, unknown>;
        };
        if (resolve) field.resolve = resolve;
        if (subscribe) field.subscribe = subscribe;
      }
    }
  }
  return schema;
}
