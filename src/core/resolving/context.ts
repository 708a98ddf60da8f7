import { getOperationAST, type DocumentNode } from 'graphql';
import type { Principal } from '../access/principal.ts';
import type { RightsCheck } from '../access/rights.ts';
import { AppError } from '../errors/app-error.ts';
import { parseId } from '../validation/input-rules.ts';

/** What every resolver receives as its context: the caller, verified from the same Bearer token as REST. */
export interface GraphQLContext {
  principal: Principal | null;
}

/**
 * DECISIONS §5 for GraphQL (the HTTP route skips the per-request check: its POST may be a read):
 * a mutation, or any operation with a token claiming admin, runs with the caller's current rights.
 * A deleted or suspended caller's operation is refused whole (401, like an invalid token).
 * Returns the check to wait for, or undefined when there is none (the caller then waits for nothing).
 */
export function currentRightsCheck(
  rights: RightsCheck,
  document: DocumentNode,
  context: GraphQLContext & { operationName?: string | undefined },
): Promise<void> | undefined {
  const principal = context.principal;
  if (!principal) return undefined;
  if (principal.role !== 'admin' && getOperationAST(document, context.operationName)?.operation !== 'mutation')
    return undefined;
  return rights.current(principal).then((current) => {
    context.principal = current;
  });
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

/** The id no row has: what a malformed `ID` argument stands for, so it names nothing. */
const NO_ROW = 0;

/**
 * GraphQL IDs are the REST integer ids as strings, read by the same parser as REST path ids
 * (`parseId`). An ID that is not one names nothing, exactly like an unknown id: it becomes 0, which
 * no row has, so the service still runs its own checks (sign-in, permissions) first.
 */
export function toId(id: string | number): number {
  return parseId(String(id)) ?? NO_ROW;
}

/**
 * Runs a service call on the row an `ID` argument names. For a malformed ID the call runs on no row
 * (permission checks answer first, as for an unknown id) and its NOT_FOUND names `what` without
 * echoing the stand-in id ("User not found", never "User 0 not found").
 */
export async function withId<T>(id: string | number, what: string, call: (id: number) => Promise<T>): Promise<T> {
  const parsed = parseId(String(id));
  if (parsed !== undefined) return call(parsed);
  try {
    return await call(NO_ROW);
  } catch (error) {
    if (error instanceof AppError && error.code === 'NOT_FOUND') throw AppError.notFound(what);
    throw error;
  }
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
