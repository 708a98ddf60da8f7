import type { Principal } from '../access/principal.ts';
import { AppError } from '../errors/app-error.ts';
import type { ApiVersion } from '../http/versioning.ts';
import { resolveRelations, type EmbedCatalogue, type EmbedContext, type View } from './embedding-relations.ts';

/**
 * `include` and `_embedded` (DECISIONS §12, docs/QUERYING.md): a read or a list names relations of its
 * items, and each relation's objects are read for every item of a level at once (one batch read per
 * relation and level, never one per item), presented as a direct read presents them (with their own
 * `_links` and the same permissions) and attached under the item's `_embedded`. Core knows no resource:
 * each module declares its kinds' relations and its objects' source (`<resource>.embeds.ts`, over its
 * own service and presenter; embedding-relations.ts), and the app composes them into one catalogue.
 */

/** What `include` asks for: each relation named at this level and what it asks for one level down. */
export type IncludeTree = ReadonlyMap<string, IncludeTree>;

export { EMBEDDED_LIST_LIMIT } from './embedding-relations.ts';
export type { EmbedCatalogue, EmbedContext, View } from './embedding-relations.ts';

/** `comments.author` is two levels; a third is refused. */
export const MAX_INCLUDE_DEPTH = 2;

const refuse = (message: string) => AppError.validation([{ field: 'include', message }]);

/** What a route hands over of its request: the `include` in its query, who asks, its prefix and version. */
export interface IncludeRequest {
  query: unknown;
  principal: Principal | null;
  apiPrefix: string;
  apiVersion: ApiVersion;
}

/** One request's `include`, checked: embeds it in that request's views. */
export interface RequestEmbedder {
  list<V extends View>(views: V[]): Promise<V[]>;
  one<V extends View>(view: V): Promise<V>;
}

export interface Embedding {
  /**
   * The `include` of a request for `kind`'s objects, checked now (a 422 comes before any read), with the
   * request's viewer, prefix and version: what a route calls first, then `list` or `one` on its views.
   */
  forRequest(kind: string, request: IncludeRequest): RequestEmbedder;
  /** The `include` of a request for `kind`'s objects, checked: 422 naming `include` for anything it cannot embed. */
  parse(kind: string, include: string | undefined): IncludeTree;
  /** Adds `_embedded` to each view (in place) as `tree` asks; the views are returned for convenience. */
  attach<V extends View>(kind: string, views: V[], tree: IncludeTree, context: EmbedContext): Promise<V[]>;
  /** Every path `include` accepts for `kind` (a post: author, comments, comments.author, ...), for documentation. */
  paths(kind: string): string[];
}

export function createEmbedding(catalogue: EmbedCatalogue): Embedding {
  const relations = resolveRelations(catalogue);
  const relationsOf = (kind: string) => relations[kind] ?? {};

  function parse(kind: string, include: string | undefined): IncludeTree {
    const tree = new Map<string, Map<string, unknown>>();
    if (include === undefined || include.trim() === '') return tree as IncludeTree;
    for (const raw of include.split(',')) {
      const path = raw.trim();
      const steps = path.split('.');
      if (path === '' || steps.some((step) => step === '')) throw refuse(`"${path}" is not a relation path`);
      if (steps.length > MAX_INCLUDE_DEPTH)
        throw refuse(`"${path}" is ${steps.length} levels deep; at most ${MAX_INCLUDE_DEPTH} (e.g. comments.author)`);
      let at = kind;
      let node = tree;
      for (const step of steps) {
        const relation = Object.hasOwn(relationsOf(at), step) ? relationsOf(at)[step] : undefined;
        if (!relation) {
          const known = paths(kind).join(', ') || 'none';
          throw refuse(`unknown relation "${path}"; this resource embeds: ${known}`);
        }
        if (!node.has(step)) node.set(step, new Map());
        node = node.get(step) as Map<string, Map<string, unknown>>;
        at = relation.target;
      }
      const last = relationsOf(kind)[steps[0]!];
      if (steps.length === 1 && last?.inPlace)
        throw refuse(`"${path}" is part of the resource already; name what to embed in it (${paths(kind).join(', ')})`);
    }
    return tree as IncludeTree;
  }

  async function attach<V extends View>(kind: string, views: V[], tree: IncludeTree, context: EmbedContext) {
    if (tree.size === 0 || views.length === 0) return views;
    // The relations of one level are independent: read side by side.
    await Promise.all(
      [...tree].map(async ([name, below]) => {
        const relation = relationsOf(kind)[name]!;
        const related = await relation.load(views, context);
        const next: View[] = [];
        views.forEach((view, index) => {
          const value = related[index];
          if (value === undefined) return;
          const target = view as Record<string, unknown>;
          if (relation.inPlace) target[name] = value;
          else target._embedded = { ...(target._embedded as object | undefined), [name]: value };
          for (const child of [value].flat() as View[]) next.push(child);
        });
        // One object can be related to several parents (an author of many posts): its relations are read once.
        if (below.size > 0) await attach(relation.target, [...new Set(next)], below, context);
      }),
    );
    return views;
  }

  function paths(kind: string): string[] {
    const all: string[] = [];
    for (const [name, relation] of Object.entries(relationsOf(kind))) {
      if (!relation.inPlace) all.push(name);
      for (const nested of Object.keys(relationsOf(relation.target))) all.push(`${name}.${nested}`);
    }
    return all;
  }

  function forRequest(kind: string, request: IncludeRequest): RequestEmbedder {
    const include = (request.query as { include?: string } | undefined)?.include;
    const tree = parse(kind, include);
    const context = { viewer: request.principal, prefix: request.apiPrefix, version: request.apiVersion };
    return {
      list: (views) => attach(kind, views, tree, context),
      one: async (view) => (await attach(kind, [view], tree, context))[0]!,
    };
  }

  return { forRequest, parse, attach, paths };
}
