import type { FieldMap } from '../modules/module.ts';
import { modules } from '../modules/index.ts';
import type { Services } from '../services.ts';

function merge(target: Record<string, FieldMap>, source: Record<string, FieldMap>): void {
  for (const [type, fields] of Object.entries(source)) target[type] = { ...target[type], ...fields };
}

/** Every module's resolvers and batched relation fields, merged per type (each module owns its own fields). */
export function buildResolvers(services: Services) {
  const resolvers: Record<string, FieldMap> = {};
  const batched: Record<string, FieldMap> = {};
  const readWithList = new Set<string>();
  for (const module of modules) {
    if (!module.graphql) continue;
    const graph = module.graphql.resolvers(services);
    merge(resolvers, graph.resolvers);
    merge(batched, graph.batched);
    for (const type of graph.readWithList ?? []) readWithList.add(type);
  }
  return { resolvers, batched, readWithList };
}
