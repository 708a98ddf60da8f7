import type {
  CreateParams,
  DataProvider,
  DeleteManyParams,
  DeleteParams,
  GetListParams,
  GetManyParams,
  GetManyReferenceParams,
  GetOneParams,
  Identifier,
  RaRecord,
  UpdateManyParams,
  UpdateParams,
} from 'react-admin';
import { HttpError } from 'react-admin';
import { api, type ApiResponse } from './http.ts';
import { RESOURCES, type ResourceSpec } from './resources.ts';

type Item = RaRecord & Record<string, unknown>;

/** A 412 on save: the item changed meanwhile. The edit screen shows both sides and lets the person choose. */
export interface Conflict {
  server: Item;
  local: Record<string, unknown>;
  etag: string | null;
}

/**
 * The error a save rejects with on a 412: react-admin's HttpError (it resets its prototype, so a
 * subclass would not be told apart by `instanceof`) carrying the conflict in its body.
 */
function conflictError(conflict: Conflict): HttpError {
  return new HttpError('This item changed meanwhile', 412, { conflict });
}

export function conflictOf(error: unknown): Conflict | undefined {
  return (error as { body?: { conflict?: Conflict } } | null)?.body?.conflict;
}

const etags = new Map<string, string>();
const etagKey = (resource: string, id: Identifier) => `${resource}/${String(id)}`;

/** The cursor of each page already seen, per list (its filters, sort and page size). */
const cursors = new Map<string, (string | undefined)[]>();

function specOf(resource: string): ResourceSpec {
  const spec = RESOURCES[resource];
  if (!spec) throw new Error(`Unknown resource ${resource}`);
  return spec;
}

/** `{price: {gte: 5}, q: "x"}` as `price[gte]=5&q=x` (react-admin nests a filter source written `price.gte`). */
export function filterParameters(filter: Record<string, unknown>, into = new URLSearchParams(), prefix = '') {
  for (const [key, value] of Object.entries(filter)) {
    const name = prefix ? `${prefix}[${key}]` : key;
    if (value === undefined || value === null || value === '') continue;
    if (Array.isArray(value)) into.set(name, value.join(','));
    else if (typeof value === 'object') filterParameters(value as Record<string, unknown>, into, name);
    else into.set(name, String(value));
  }
  return into;
}

/** The list's query without paging: its filters, `q` and sort (what Export and the cursors are made for). */
export function listQuery(resource: string, params: Pick<GetListParams, 'filter' | 'sort'>): URLSearchParams {
  const spec = specOf(resource);
  const query = filterParameters(params.filter ?? {});
  const sort = params.sort;
  if (sort?.field && spec.sort !== 'none' && !(sort.field === 'id' && sort.order === defaultOrder(resource))) {
    if (spec.sort === 'order') {
      query.set('sort', sort.field);
      query.set('order', sort.order.toLowerCase());
    } else query.set('sort', `${sort.order === 'DESC' ? '-' : ''}${sort.field}`);
  }
  for (const [name, value] of Object.entries(spec.extra ?? {})) query.set(name, value);
  return query;
}

/** The order each list has when none is asked for (posts and comments newest first). */
export function defaultOrder(resource: string): 'ASC' | 'DESC' {
  return resource === 'posts' || resource === 'comments' ? 'DESC' : 'ASC';
}

interface ListBody {
  data: Item[];
  pagination?: { nextCursor?: string | null; hasNext?: boolean };
  nextCursor?: string | null;
  facets?: Record<string, { value: unknown; count: number }[]>;
}

async function getList(resource: string, params: GetListParams) {
  const spec = specOf(resource);
  const { page, perPage } = params.pagination ?? { page: 1, perPage: 20 };
  const query = listQuery(resource, params);
  const key = `${resource}?${query.toString()}&limit=${perPage}`;
  const seen = cursors.get(key) ?? [undefined];
  query.set('limit', String(perPage));
  if (spec.countNone) query.set('count', 'none');
  if (spec.facets && params.meta?.facets) query.set('facets', spec.facets.join(','));
  if (page > 1) {
    if (spec.cursorParam === 'page') query.set('page', String(page));
    else {
      const cursor = seen[page - 1];
      // A page reached without its cursor (a bookmarked page 3): start again from the first.
      if (cursor === undefined) return getList(resource, { ...params, pagination: { page: 1, perPage } });
      query.set(spec.cursorParam, cursor);
    }
  }
  const { body } = await api<ListBody>(`/api/v2${spec.list}?${query.toString()}`);
  const next = body.pagination?.nextCursor ?? body.nextCursor ?? null;
  const hasNextPage =
    spec.cursorParam === 'after'
      ? body.data.length === perPage
      : spec.cursorParam === 'page'
        ? Boolean(body.pagination?.hasNext)
        : next !== null;
  if (next !== null) {
    seen[page] = next;
    cursors.set(key, seen);
  }
  return {
    data: body.data.map((item) => withId(resource, item)),
    pageInfo: { hasNextPage, hasPreviousPage: page > 1 },
    meta: { facets: body.facets ?? {} },
  };
}

/** Every item has an `id`; an event's is its string id. */
function withId(_resource: string, item: Item): Item {
  return item;
}

async function getOne(resource: string, id: Identifier, meta?: Record<string, unknown>) {
  const spec = specOf(resource);
  if (!spec.item) throw new Error(`${resource} have no item path`);
  const record = meta?.record as Item | undefined;
  const suffix = meta?.trashed ? '?trashed=include' : '';
  const response = await api<Item>(`/api/v2${spec.item(id, record)}${suffix}`);
  remember(resource, id, response);
  // The version's ETag travels with the record: a form saves with the ETag of what it shows.
  return { ...response.body, _etag: response.headers.get('etag') };
}

function remember(resource: string, id: Identifier, response: ApiResponse<unknown>): void {
  const etag = response.headers.get('etag');
  if (etag) etags.set(etagKey(resource, id), etag);
}

/** The fields that differ between the form's values and the item as it was read. */
export function changedFields(data: Record<string, unknown>, previous: Record<string, unknown>, writable?: string[]) {
  const changes: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(data)) {
    if (writable && !writable.includes(field)) continue;
    if (field === 'id' || field.startsWith('_')) continue;
    if (JSON.stringify(value ?? null) !== JSON.stringify(previous[field] ?? null)) changes[field] = value ?? null;
  }
  return changes;
}

// The API's items are JSON of many shapes; react-admin's generic record types are the caller's to choose.
export const dataProvider = {
  getList,
  async getOne(resource: string, params: GetOneParams) {
    return { data: await getOne(resource, params.id, params.meta) };
  },
  async getMany(resource: string, params: GetManyParams) {
    const data = await Promise.all(params.ids.map((id: Identifier) => getOne(resource, id)));
    return { data };
  },
  async getManyReference(resource: string, params: GetManyReferenceParams) {
    const filter = { ...params.filter, [params.target]: params.id };
    return getList(resource, { ...params, filter });
  },
  async create(resource: string, params: CreateParams) {
    const spec = specOf(resource);
    if (!spec.create) throw new Error(`${resource} cannot be created here`);
    const data = { ...params.data } as Record<string, unknown>;
    if (resource === 'posts') delete data.authorId;
    const response = await api<Item>(`/api/v2${spec.create(params.data)}`, {
      method: 'POST',
      body: JSON.stringify(data),
    });
    // The edit form that follows saves with this version's ETag: read it as a GET shows it.
    if (!spec.item) return { data: response.body };
    return { data: await getOne(resource, response.body.id) };
  },
  async update(resource: string, params: UpdateParams) {
    const spec = specOf(resource);
    const previous = params.previousData as Item;
    const writable = params.meta?.writable as string[] | undefined;
    const changes = changedFields(params.data as Record<string, unknown>, previous, writable);
    const etag =
      (params.meta?.ifMatch as string | undefined) ??
      (previous._etag as string | undefined) ??
      etags.get(etagKey(resource, params.id));
    const path = `/api/v2${spec.item!(params.id, previous)}`;
    if (!etag) {
      // No version known for what the form shows: never write blind; show what is there now.
      const current = await api<Item>(path);
      throw conflictError({ server: current.body, local: changes, etag: current.headers.get('etag') });
    }
    try {
      const response = await api<Item>(path, {
        method: 'PATCH',
        body: JSON.stringify(changes),
        headers: { 'if-match': etag },
      });
      remember(resource, params.id, response);
      return { data: response.body };
    } catch (error) {
      if (!(error instanceof HttpError) || error.status !== 412) throw error;
      // Nothing was written: read what is there now, and let the person choose.
      const current = await api<Item>(path);
      remember(resource, params.id, current);
      throw conflictError({ server: current.body, local: changes, etag: current.headers.get('etag') });
    }
  },
  async updateMany(resource: string, params: UpdateManyParams) {
    const ids = [];
    for (const id of params.ids) {
      const { data } = await dataProvider.update(resource, { id, data: params.data, previousData: { id } });
      ids.push(data.id);
    }
    return { data: ids };
  },
  async delete(resource: string, params: DeleteParams) {
    const spec = specOf(resource);
    await api(`/api/v2${spec.item!(params.id, params.previousData as Item)}`, { method: 'DELETE' });
    return { data: params.previousData as Item };
  },
  async deleteMany(resource: string, params: DeleteManyParams) {
    for (const id of params.ids) await api(`/api/v2${specOf(resource).item!(id)}`, { method: 'DELETE' });
    return { data: params.ids };
  },
} as unknown as DataProvider;
