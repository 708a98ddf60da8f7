import { commentsResolvers } from '../modules/comments/comments.resolvers.ts';
import { postsResolvers } from '../modules/posts/posts.resolvers.ts';
import { usersResolvers } from '../modules/users/users.resolvers.ts';
import type { Services } from '../services.ts';

type FieldMap = Record<string, unknown>;
interface ModuleGraph {
  resolvers: Record<string, FieldMap>;
  loaders: Record<string, FieldMap>;
}

function merge(target: Record<string, FieldMap>, source: Record<string, FieldMap>): void {
  for (const [type, fields] of Object.entries(source)) target[type] = { ...target[type], ...fields };
}

/** Every module's resolvers and loaders, merged per type (each module owns its own fields). */
export function buildResolvers(services: Services) {
  const modules: ModuleGraph[] = [usersResolvers(services), postsResolvers(services), commentsResolvers(services)];
  const resolvers: Record<string, FieldMap> = {};
  const loaders: Record<string, FieldMap> = {};
  for (const module of modules) {
    merge(resolvers, module.resolvers);
    merge(loaders, module.loaders);
  }
  return { resolvers, loaders };
}
