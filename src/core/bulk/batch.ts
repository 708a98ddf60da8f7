import type { Principal } from '../access/principal.ts';
import { inOuterTransaction } from '../db/outer-transaction.ts';
import { AppError, type ErrorDetail } from '../errors/app-error.ts';
import type { Precondition } from '../precondition.ts';

export type BatchOp = 'create' | 'update' | 'upsert' | 'delete';
export const BATCH_OPS: readonly BatchOp[] = ['create', 'update', 'upsert', 'delete'];
export const MAX_BATCH_OPERATIONS = 1000;

export interface BatchOperation {
  op: BatchOp;
  id?: number | undefined;
  ifMatch?: string | undefined;
  data?: unknown;
}

/**
 * One resource as a batch writes it: each operation is the single request's own service call
 * (permissions, validation, `If-Match`, events, counters), so a batch has no second implementation
 * of any write. The checks run the services' own schemas before anything is written.
 */
export interface BatchTarget<T> {
  resource: string;
  ops: ReadonlySet<BatchOp>;
  /** Users' batches are for admins (sign-up stays single): refused whole, before any check. */
  adminOnly: boolean;
  checkCreate(data: unknown): void;
  checkUpdate(data: unknown): void;
  /** The create body as the service takes it (posts: `authorId` defaults to the caller). */
  createBody(actor: Principal | null, data: unknown): unknown;
  /** The natural key upserts match on (products `sku`, users `email`); none for posts. */
  naturalKey?: { field: string; normalize(value: string): string; find(value: string): Promise<T | undefined> };
  /** The fields a create and an update may name (an import's header is checked against them), with their JSON types. */
  fields?: Readonly<Record<string, string>>;
  create(actor: Principal | null, data: unknown): Promise<T>;
  /**
   * The same create for a list (the single one is a list of one): each body's value, or the error that
   * refused it alone (its checks, a taken unique key), the others written. Runs of creates go through it.
   */
  createMany?(actor: Principal | null, data: readonly unknown[]): Promise<(T | AppError)[]>;
  update(actor: Principal | null, id: number, data: unknown, precondition?: Precondition<T>): Promise<T>;
  remove(actor: Principal | null, id: number, precondition?: Precondition<T>): Promise<boolean>;
  idOf(value: T): number;
}

export interface BatchResult<T> {
  index: number;
  status: number;
  id?: number;
  value?: T;
  error?: AppError;
}

export interface BatchOutcome<T> {
  results: BatchResult<T>[];
  succeeded: number;
  failed: number;
}

/** Builds the `ifMatch` of an operation as the transport compares it (REST: the GET's strong ETag). */
export type PreconditionOf<T> = (ifMatch: string) => Precondition<T>;

const at = (index: number, field?: string) => `operations.${index}${field ? `.${field}` : ''}`;

/** An `AppError`'s details under `operations.N.data.` (its own field names are the body's). */
function detailsUnder(index: number, error: unknown): ErrorDetail[] {
  if (error instanceof AppError && error.details?.length)
    return error.details.map((d) => ({ field: at(index, d.field ? `data.${d.field}` : 'data'), message: d.message }));
  return [{ field: at(index), message: error instanceof Error ? error.message : 'is invalid' }];
}

/** The envelope's rules, whole-batch: an op the resource does not take, a missing id, a key an upsert lacks. */
function checkEnvelope<T>(target: BatchTarget<T>, operations: readonly BatchOperation[]): void {
  if (operations.length > MAX_BATCH_OPERATIONS)
    throw new AppError('PAYLOAD_TOO_LARGE', `A batch holds at most ${MAX_BATCH_OPERATIONS} operations`, {
      details: [{ field: 'operations', message: `has ${operations.length} operations` }],
    });
  const details: ErrorDetail[] = [];
  const targets = new Map<string, number>();
  operations.forEach((operation, index) => {
    if (!target.ops.has(operation.op)) {
      const why = operation.op === 'upsert' ? 'has no natural key' : `takes ${[...target.ops].join(', ')}`;
      details.push({ field: at(index, 'op'), message: `${target.resource} ${why}` });
      return;
    }
    let key: string | undefined;
    if (operation.op === 'update' || operation.op === 'delete') {
      if (operation.id === undefined) details.push({ field: at(index, 'id'), message: 'is required' });
      else key = `id:${operation.id}`;
    }
    const natural = target.naturalKey;
    if (natural && (operation.op === 'upsert' || operation.op === 'create')) {
      const value = (operation.data as Record<string, unknown> | undefined)?.[natural.field];
      if (typeof value === 'string') key = `${natural.field}:${natural.normalize(value)}`;
      else if (operation.op === 'upsert')
        details.push({ field: at(index, `data.${natural.field}`), message: 'is required for an upsert' });
    }
    if (key === undefined) return;
    const first = targets.get(key);
    if (first !== undefined)
      details.push({ field: at(index), message: `targets the same ${target.resource} as operations.${first}` });
    else targets.set(key, index);
  });
  if (details.length) throw AppError.validation(details, 'The batch is malformed');
}

/** Each operation's own checks; what one refuses, as a 422 naming `operations.N.data....`. */
function checkOperation<T>(actor: Principal | null, target: BatchTarget<T>, operation: BatchOperation, index: number) {
  try {
    if (operation.op === 'create') target.checkCreate(target.createBody(actor, operation.data ?? {}));
    else if (operation.op === 'update' || operation.op === 'upsert') target.checkUpdate(operation.data ?? {});
    return undefined;
  } catch (error) {
    return AppError.validation(detailsUnder(index, error));
  }
}

/** One operation through the target's single write (an import's row is one: modules/imports). */
export async function runOperation<T>(
  actor: Principal | null,
  target: BatchTarget<T>,
  operation: BatchOperation,
  index: number,
  preconditionOf: PreconditionOf<T>,
): Promise<BatchResult<T>> {
  const precondition = operation.ifMatch !== undefined ? preconditionOf(operation.ifMatch) : undefined;
  switch (operation.op) {
    case 'create': {
      const value = await target.create(actor, target.createBody(actor, operation.data ?? {}));
      return { index, status: 201, id: target.idOf(value), value };
    }
    case 'update': {
      const value = await target.update(actor, operation.id!, operation.data ?? {}, precondition);
      return { index, status: 200, id: target.idOf(value), value };
    }
    case 'delete': {
      if (!(await target.remove(actor, operation.id!, precondition)))
        throw AppError.notFound(`${target.resource} ${operation.id}`);
      return { index, status: 204, id: operation.id! };
    }
    case 'upsert': {
      const natural = target.naturalKey!;
      const key = (operation.data as Record<string, string>)[natural.field]!;
      const current = await natural.find(natural.normalize(key));
      if (current) {
        const value = await target.update(actor, target.idOf(current), operation.data, precondition);
        return { index, status: 200, id: target.idOf(value), value };
      }
      const value = await target.create(actor, target.createBody(actor, operation.data));
      return { index, status: 201, id: target.idOf(value), value };
    }
  }
}

/** A failed operation of an atomic batch: its own error, its details under `operations.N`. */
function atomicFailure(index: number, error: unknown): unknown {
  if (!(error instanceof AppError)) return error;
  const details = error.details?.length ? detailsUnder(index, error) : [{ field: at(index), message: error.message }];
  return new AppError(error.code, error.message, { status: error.status, details, headers: error.headers ?? {} });
}

/** The create bodies of the operations from `start` on that are creates, when the target creates lists. */
function createRunAt<T>(
  actor: Principal | null,
  target: BatchTarget<T>,
  operations: readonly BatchOperation[],
  start: number,
): unknown[] {
  const bodies: unknown[] = [];
  if (!target.createMany) return bodies;
  for (let index = start; index < operations.length && operations[index]!.op === 'create'; index += 1)
    bodies.push(target.createBody(actor, operations[index]!.data ?? {}));
  return bodies;
}

export interface BatchRequest {
  atomic?: boolean | undefined;
  operations: readonly BatchOperation[];
}

/** A service's batch (`withBatch`): the caller, the request and how its `ifMatch` values are compared. */
export type Batch<T> = (
  actor: Principal | null,
  request: BatchRequest,
  preconditionOf: PreconditionOf<T>,
) => Promise<BatchOutcome<T>>;

/**
 * A service with its batch: `service.batch(actor, request, preconditionOf)` runs each operation through
 * the service's own calls (`target` says which), in one transaction of `db` when atomic.
 */
export function withBatch<S extends object, T>(
  db: object,
  service: S,
  target: (service: S) => BatchTarget<T>,
): S & { batch: Batch<T>; batchTarget: BatchTarget<T> } {
  const own = target(service);
  return {
    ...service,
    batch: (actor, request, preconditionOf) => runBatch(db, actor, own, request, preconditionOf),
    batchTarget: own,
  };
}

/**
 * DECISIONS §18's batch: every operation checked before anything is written; `atomic` (the default)
 * in one transaction that the first failure rolls back whole, else each operation alone.
 */
export async function runBatch<T>(
  db: object,
  actor: Principal | null,
  target: BatchTarget<T>,
  request: BatchRequest,
  preconditionOf: PreconditionOf<T>,
): Promise<BatchOutcome<T>> {
  if (target.adminOnly && actor?.role !== 'admin')
    throw actor ? AppError.forbidden(`Batches of ${target.resource} are for admins`) : AppError.unauthorized();
  const { operations } = request;
  checkEnvelope(target, operations);
  const refusals = operations.map((operation, index) => checkOperation(actor, target, operation, index));
  if (request.atomic !== false) {
    const details = refusals.flatMap((refusal) => refusal?.details ?? []);
    if (details.length) throw AppError.validation(details);
    const results = await inOuterTransaction(db, async () => {
      const done: BatchResult<T>[] = [];
      for (let index = 0; index < operations.length;) {
        const creates = createRunAt(actor, target, operations, index);
        if (creates.length > 1) {
          // A run of creates: the list create, whose first refusal rolls every operation back.
          const answers = await target.createMany!(actor, creates);
          for (const answer of answers) {
            if (answer instanceof AppError) throw atomicFailure(index, answer);
            done.push({ index, status: 201, id: target.idOf(answer), value: answer });
            index += 1;
          }
          continue;
        }
        try {
          done.push(await runOperation(actor, target, operations[index]!, index, preconditionOf));
        } catch (error) {
          throw atomicFailure(index, error);
        }
        index += 1;
      }
      return done;
    });
    return { results, succeeded: results.length, failed: 0 };
  }
  const results: BatchResult<T>[] = [];
  for (const [index, operation] of operations.entries()) {
    const refusal = refusals[index];
    if (refusal) {
      results.push({ index, status: refusal.status, error: refusal });
      continue;
    }
    try {
      results.push(await runOperation(actor, target, operation, index, preconditionOf));
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      results.push({ index, status: error.status, ...(operation.id !== undefined ? { id: operation.id } : {}), error });
    }
  }
  const failed = results.filter((r) => r.error).length;
  return { results, succeeded: results.length - failed, failed };
}

/**
 * The writable fields of a resource with the JSON type each takes (`number`, `integer`, `boolean`,
 * `string`), read from its create and update schemas: what an import's CSV header may name and how
 * its text cells become values.
 */
export function writableFieldsOf(...schemas: { properties?: Record<string, unknown> }[]): Record<string, string> {
  const fields: Record<string, string> = {};
  const typeOf = (node: Record<string, unknown>): string => {
    const options = (node.anyOf ?? node.oneOf) as Record<string, unknown>[] | undefined;
    if (options) return options.map(typeOf).find((type) => type !== 'null') ?? 'string';
    const type = [node.type ?? 'string'].flat().find((t) => t !== 'null');
    return typeof type === 'string' ? type : 'string';
  };
  for (const schema of schemas)
    for (const [name, node] of Object.entries(schema.properties ?? {}))
      fields[name] ??= typeOf(node as Record<string, unknown>);
  return fields;
}
