import { AppError } from '../errors/app-error.ts';
import type { IdempotencyStore } from '../idempotency/idempotency.store.ts';
import type { GraphQLContext } from './context.ts';

/** The REST header's rule (idempotency.http.ts): 1-200 visible ASCII characters, e.g. a UUID. */
const KEY_PATTERN = /^[\x21-\x7E]{1,200}$/;

export interface IdempotentMutation {
  /** The mutation's name (`createOrder`, `payOrder`): one key means nothing across mutations. */
  mutation: string;
  /** The `idempotencyKey` argument; null or absent runs the work as it is. */
  key: string | null | undefined;
  /** Everything that makes two calls "the same" (the arguments other than the key). */
  fingerprint: unknown;
}

/**
 * A mutation under an `idempotencyKey`, with the semantics of REST's `Idempotency-Key` and the same store
 * (core/idempotency/README.md): the same key and arguments within 24 h answer the first result without
 * acting again, other arguments are `IDEMPOTENCY_KEY_REUSED`, a failure releases the key. The scope is the
 * caller and the mutation, so a GraphQL key never replays a REST answer (whose body has `_links`).
 * The work's result is kept as JSON: a domain object (an `Order`), which the fields are resolved from.
 */
export async function idempotent<T>(
  store: IdempotencyStore,
  context: GraphQLContext,
  request: IdempotentMutation,
  work: () => Promise<T>,
): Promise<T> {
  const { key } = request;
  // No caller: the service refuses it (UNAUTHENTICATED) before the key is worth checking or remembering.
  if (key === null || key === undefined || !context.principal) return work();
  if (!KEY_PATTERN.test(key)) {
    throw AppError.validation([{ field: 'idempotencyKey', message: 'must be 1-200 visible ASCII characters' }]);
  }
  const outcome = await store
    .run(
      { scope: `user:${context.principal.userId} graphql ${request.mutation}`, key, fingerprint: request.fingerprint },
      async () => ({ status: 200, headers: {}, body: await work() }),
    )
    .catch((error: unknown) => {
      throw error instanceof AppError && error.code === 'IDEMPOTENCY_KEY_REUSED' ? keyReused(error) : error;
    });
  return outcome.body as T;
}

/** The store's refusal naming the argument rather than REST's header. */
const keyReused = (error: AppError) =>
  new AppError(error.code, error.message, {
    details: [{ field: 'idempotencyKey', message: 'was already used with different arguments' }],
  });
