import type { Principal } from '../access/principal.ts';
import type { ApiVersion } from '../http/versioning.ts';

/**
 * What `include` embeds (embedding.ts), as the modules declare it: each kind's relations by name, and
 * how the kind's own objects are read and presented where another kind embeds them (its `source`). A
 * relation to another module's kind names that kind only (`toOne`, `toMany`); the kind's own module
 * says how its objects are read in batches and presented (`embedSource`), so no module imports another's
 * presenter or service to embed its objects. The app composes every module's declaration into one
 * catalogue, and `resolveRelations` joins each reference to its target's source at start-up.
 */

/** A presented object: a REST representation (with its `_links`) that may gain `_embedded`. */
export type View = object;

/** Who reads, and how the representations of the request are made (links under its prefix, its version). */
export interface EmbedContext {
  viewer: Principal | null;
  prefix: string;
  version: ApiVersion;
}

/** An embedded list holds this many objects at most (DECISIONS §12). */
export const EMBEDDED_LIST_LIMIT = 20;

/** The related objects of one parent: one object (undefined: none, or not readable by the viewer), or a list. */
export type Related = View | readonly View[] | undefined;

export interface Relation {
  /** The kind of the related objects: its relations are the ones a second level names. */
  readonly target: string;
  /** The related objects of every parent of one level, presented, in the parents' order: batched reads only. */
  load(parents: readonly View[], context: EmbedContext): Promise<readonly Related[]>;
  /**
   * The related objects are a property of the parent already (an order's `items`): they are presented
   * where they are, and the relation is only a step towards theirs (`items.product`).
   */
  readonly inPlace?: boolean;
}

/** A relation to another kind named by that kind only: read and presented as the target's source says. */
export interface RelationReference {
  readonly target: string;
  readonly reference:
    | { by: 'id'; keyOf(parent: View): number | null | undefined }
    | { by: 'parent'; parent: string; keyOf(parent: View): number };
}

/** Each parent's first `limit` children in the relation's order, in one batch read. */
type ReadByParentIds<C> = (
  ids: number[],
  limit: number,
  context: EmbedContext,
) => Promise<ReadonlyMap<number, readonly C[]>>;

/** How a kind's objects are read in batches and presented where another kind embeds them. */
export interface EmbedSource<C = never> {
  /** Every id at once, one batch read; any order, missing or unreadable ones left out. */
  readonly readByIds?: (ids: number[], context: EmbedContext) => Promise<readonly (C & { id: number })[]>;
  /** By the parent they name (a post's `author`, a comment's `post`): the reads of `toMany` relations. */
  readonly readByParentIds?: Readonly<Record<string, ReadByParentIds<C>>>;
  present(child: C, context: EmbedContext): View;
}

/** What a module declares of one kind: its relations, and its objects' source for other kinds' relations. */
export interface EmbedKind {
  readonly relations?: Readonly<Record<string, Relation | RelationReference>>;
  readonly source?: EmbedSource<never>;
}

/** Every kind's declaration (`user`, `post`, ...): what the modules declare and the app composes. */
export type EmbedCatalogue = Readonly<Record<string, EmbedKind>>;

/** The relations of each kind, every reference joined to its target's source (`resolveRelations`). */
export type ResolvedRelations = Readonly<Record<string, Readonly<Record<string, Relation>>>>;

/** The source of a module's kind, typed by its objects (`C`) where it is declared. */
export function embedSource<C>(source: EmbedSource<C>): EmbedSource<never> {
  return source as unknown as EmbedSource<never>;
}

/** A to-one relation to `target`: the parent names the related object's id (a post's `authorId`). */
export function toOne<P extends View>(
  target: string,
  keyOf: (parent: P) => number | null | undefined,
): RelationReference {
  return { target, reference: { by: 'id', keyOf: keyOf as (parent: View) => number | null | undefined } };
}

/** A to-many relation to `target`: the first children of every parent, read by the parent they name (`parent`). */
export function toMany<P extends View>(
  target: string,
  parent: string,
  keyOf: (parent: P) => number,
): RelationReference {
  return { target, reference: { by: 'parent', parent, keyOf: keyOf as (parent: View) => number } };
}

/** Each kind's relations, every reference joined to its target's source; a reference no source can serve fails here. */
export function resolveRelations(catalogue: EmbedCatalogue): ResolvedRelations {
  const resolved: Record<string, Record<string, Relation>> = {};
  for (const [kind, { relations = {} }] of Object.entries(catalogue)) {
    resolved[kind] = {};
    for (const [name, relation] of Object.entries(relations)) {
      resolved[kind][name] = 'reference' in relation ? joined(catalogue, `${kind}.${name}`, relation) : relation;
    }
  }
  return resolved;
}

function joined(catalogue: EmbedCatalogue, path: string, { target, reference }: RelationReference): Relation {
  const source = catalogue[target]?.source as EmbedSource<{ id: number }> | undefined;
  const missing = (how: string) => new Error(`${path} embeds ${target} ${how}, but no module declares that read`);
  if (reference.by === 'id') {
    const readByIds = source?.readByIds;
    if (!readByIds) throw missing('by id');
    return relatedById({ target, keyOf: reference.keyOf, readByIds, present: source.present });
  }
  const readByParentIds = source?.readByParentIds?.[reference.parent];
  if (!readByParentIds) throw missing(`by ${reference.parent}`);
  return relatedByParent({ target, keyOf: reference.keyOf, readByParentIds, present: source.present });
}

/** A to-one relation: the parent names the related object's id (a post's `authorId`), read with the others by id. */
export function relatedById<P extends View, C extends { id: number }>(spec: {
  target: string;
  keyOf(parent: P): number | null | undefined;
  /** Every id at once, one batch read; any order, missing or unreadable ones left out. */
  readByIds(ids: number[], context: EmbedContext): Promise<readonly C[]>;
  present(child: C, context: EmbedContext): View;
}): Relation {
  return {
    target: spec.target,
    async load(parents, context) {
      const keys = (parents as readonly P[]).map((parent) => spec.keyOf(parent) ?? undefined);
      const ids = [...new Set(keys.filter((key) => key !== undefined))];
      const byId = new Map<number, View>();
      if (ids.length > 0)
        for (const child of await spec.readByIds(ids, context)) byId.set(child.id, spec.present(child, context));
      return keys.map((key) => (key === undefined ? undefined : byId.get(key)));
    },
  };
}

/** A to-many relation: the first `EMBEDDED_LIST_LIMIT` children of every parent, read in one batch by parent id. */
export function relatedByParent<P extends View, C>(spec: {
  target: string;
  keyOf(parent: P): number;
  readByParentIds: ReadByParentIds<C>;
  present(child: C, context: EmbedContext): View;
}): Relation {
  return {
    target: spec.target,
    async load(parents, context) {
      const keys = (parents as readonly P[]).map((parent) => spec.keyOf(parent));
      const byParent = await spec.readByParentIds([...new Set(keys)], EMBEDDED_LIST_LIMIT, context);
      return keys.map((key) => (byParent.get(key) ?? []).map((child) => spec.present(child, context)));
    },
  };
}
