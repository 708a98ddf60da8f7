import { getOperationAST, type DocumentNode } from 'graphql';
import type { Principal } from '../core/auth/principal.ts';
import type { RightsCheck } from '../core/auth/rights.ts';
import { AppError } from '../core/errors/app-error.ts';

/** What every resolver receives as its context: the caller, verified from the same Bearer token as REST. */
export interface GraphQLContext {
  principal: Principal | null;
}

/**
 * DECISIONS §5 for GraphQL (the HTTP route skips the per-request check: its POST may be a read):
 * a mutation, or any operation with a token claiming admin, runs with the caller's current rights.
 * A deleted or suspended caller's operation is refused whole (401, like an invalid token).
 */
export async function useCurrentRights(
  rights: RightsCheck,
  document: DocumentNode,
  context: GraphQLContext & { operationName?: string | undefined },
): Promise<void> {
  const principal = context.principal;
  if (!principal) return;
  if (principal.role === 'admin' || getOperationAST(document, context.operationName)?.operation === 'mutation') {
    context.principal = await rights.current(principal);
  }
}

/** `limit`/`offset` of a list field; null (an explicit `null` argument) means the default. */
export interface ListArgs {
  limit?: number | null;
  offset?: number | null;
}

/** The window a list field asks for, for the services (which apply defaults and the cap of 100). */
export function pageOf(args: ListArgs): { limit: number | undefined; offset: number | undefined } {
  return { limit: args.limit ?? undefined, offset: args.offset ?? undefined };
}

const POSITIVE_INTEGER = /^[1-9]\d{0,9}$/;
/** The largest id the integer columns hold (as REST's `Id`). */
const MAX_ID = 2147483647;

/**
 * GraphQL IDs are the REST integer ids as strings. An ID that is not a positive integer names
 * nothing, exactly like an unknown id: it becomes 0, which no row has.
 */
export function toId(id: string | number): number {
  const text = String(id);
  return POSITIVE_INTEGER.test(text) && Number(text) <= MAX_ID ? Number(text) : 0;
}

/** `user(id)` and `post(id)` answer null for an id that names nothing, rather than an error. */
export async function nullIfNotFound<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof AppError && error.code === 'NOT_FOUND') return null;
    throw error;
  }
}
