import {
  visit,
  getArgumentValues,
  GraphQLError,
  Kind,
  type ExecutionResult,
  type FieldNode,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import type { Principal } from '../../core/access/principal.ts';
import type { LiveTally } from '../../core/ops/live-metrics.ts';
import type { FeedEvent } from '../../modules/events/event.ts';
import { formatGraphQLError, type ErrorLogger } from '../errors.ts';
import type { PreparedOperation } from '../operation-cache.ts';
import type { EventHub } from './event-hub.ts';
import { payloadRoot, SUBSCRIPTION_SOURCES, type SubscriptionField } from './subscription-fields.ts';

/** Events waiting for one subscriber before it counts as a consumer that does not read (and is cut off). */
export const MAX_QUEUED_EVENTS = 256;

/** Who a live operation runs for, and until when. */
export interface LiveViewer {
  principal: Principal;
  /** The token's `exp`, in ms: nothing is sent from then on. */
  expiresAt: number;
}

/** The one root field of a subscription operation (graphql-js' SingleFieldSubscriptionsRule held it to one). */
function rootField(selectionSet: SelectionSetNode, fragments: Map<string, SelectionSetNode>): FieldNode | undefined {
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) return selection;
    const inner =
      selection.kind === Kind.INLINE_FRAGMENT ? selection.selectionSet : fragments.get(selection.name.value);
    const found = inner && rootField(inner, fragments);
    if (found) return found;
  }
  return undefined;
}

/** What a subscription listens to: its field, and the id its argument names (undefined: any). */
export function subscriptionTarget(
  schema: GraphQLSchema,
  prepared: PreparedOperation,
  variables: Record<string, unknown>,
): { field: SubscriptionField; value: string | undefined } {
  const fragments = new Map<string, SelectionSetNode>();
  for (const definition of prepared.document.definitions)
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition.selectionSet);
  const node = rootField(prepared.operation.selectionSet, fragments);
  const definition = node && schema.getSubscriptionType()?.getFields()[node.name.value];
  if (!node || !definition || !(node.name.value in SUBSCRIPTION_SOURCES))
    throw new GraphQLError('The subscription selects no subscription field.');
  const field = node.name.value as SubscriptionField;
  const args = getArgumentValues(definition, node, variables);
  const value = args[SUBSCRIPTION_SOURCES[field].key];
  return { field, value: value === undefined || value === null ? undefined : String(value) };
}

export interface LiveOptions {
  schema: GraphQLSchema;
  hub: EventHub;
  prepared: PreparedOperation;
  variables: Record<string, unknown>;
  operationName: string | undefined;
  viewer: LiveViewer;
  logUnexpected: ErrorLogger;
  /** Called when the subscriber's queue overflows: the transport closes the connection (back-pressure). */
  onSlow(): void;
  /** The transport's own buffer is over its bound (a consumer that does not read): checked before each payload. */
  congested?(): boolean;
  /**
   * Called before a payload is resolved when more events wait behind it (the reader handed out several at
   * once, as after a busy spell): the transport may hold its writes and send them together.
   */
  onBacklog?(): void;
  /** The transport's counts for /metrics: this subscription while it is registered, and each payload it yields. */
  tally?: LiveTally;
}

/**
 * Whether a document's answer can differ by viewer: the only read rule that depends on who reads a post,
 * a comment or a user is e-mail privacy (DECISIONS §5), so a document that selects no `email` field, in
 * any fragment, answers every signed-in viewer alike. Read once per prepared operation.
 */
const viewerIndependent = new WeakMap<PreparedOperation, boolean>();
function answersEveryViewerAlike(prepared: PreparedOperation): boolean {
  let alike = viewerIndependent.get(prepared);
  if (alike === undefined) {
    alike = true;
    visit(prepared.document, {
      Field(node) {
        if (node.name.value === 'email') alike = false;
      },
    });
    viewerIndependent.set(prepared, alike);
  }
  return alike;
}

/**
 * The last payload resolved per prepared operation, by event and variables: the subscribers of one
 * document share it when its answer does not depend on the viewer (resolved once per distinct
 * selection and viewer class, not once per subscriber). One entry per operation: every subscriber takes
 * the same event at about the same moment.
 */
const sharedPayloads = new WeakMap<PreparedOperation, { key: string; result: Promise<ExecutionResult> }>();

const EXPIRED = {
  errors: [{ message: 'The access token has expired', extensions: { code: 'UNAUTHENTICATED' } }],
} as unknown as ExecutionResult;

/**
 * A subscription as the transports consume it: an async iterator of results, one per matching event in
 * feed order, each resolved for this subscriber (its principal: permissions and e-mail privacy) like a
 * query's payload. Memory is bounded: at most MAX_QUEUED_EVENTS wait (a consumer that does not read
 * is cut off through `onSlow`). At the token's `exp` it sends an UNAUTHENTICATED error and ends, and
 * nothing is sent from `exp` on. `return()` (the client's `complete`, a closed connection) unregisters at once.
 */
export async function startLiveOperation(options: LiveOptions): Promise<AsyncGenerator<ExecutionResult>> {
  const { schema, hub, prepared, variables, viewer, logUnexpected, tally } = options;
  const { field, value } = subscriptionTarget(schema, prepared, variables);
  const source = SUBSCRIPTION_SOURCES[field];
  const queue: FeedEvent[] = [];
  let finished = false;
  let expired = false;
  let waiting: (() => void) | undefined;
  const signal = () => {
    const resume = waiting;
    waiting = undefined;
    resume?.();
  };
  // Tallied as the hub counts it (before its reader has started), so that /metrics never shows fewer
  // subscriptions than the hub holds: a scrape between the two read one less (a flake under load).
  tally?.subscribed();
  let remove: () => void;
  try {
    remove = await hub.add({
      type: source.type,
      key: source.data,
      value,
      deliver(event) {
        if (finished) return;
        if (queue.length >= MAX_QUEUED_EVENTS) {
          finish();
          options.onSlow();
          return;
        }
        queue.push(event);
        signal();
      },
    });
  } catch (error) {
    tally?.unsubscribed();
    throw error;
  }
  const expiry = setTimeout(
    () => {
      expired = true;
      signal();
    },
    Math.max(0, viewer.expiresAt - Date.now()),
  );
  function finish(): void {
    if (finished) return;
    finished = true;
    clearTimeout(expiry);
    remove();
    tally?.unsubscribed();
    queue.length = 0;
    signal();
  }

  const shareable = answersEveryViewerAlike(prepared);
  const variablesKey = shareable ? JSON.stringify(variables) : '';
  function resolveEvent(item: FeedEvent): Promise<ExecutionResult> {
    if (!shareable) return resolveFor(item);
    const key = `${item.event.id}\u0000${variablesKey}`;
    const last = sharedPayloads.get(prepared);
    if (last?.key === key) return last.result;
    const result = resolveFor(item);
    sharedPayloads.set(prepared, { key, result });
    return result;
  }

  async function resolveFor(item: FeedEvent): Promise<ExecutionResult> {
    // A context per payload: the batched resolvers group their calls by context.
    const context = { principal: viewer.principal, operationName: options.operationName };
    const result = await prepared.execute(payloadRoot(field, item.event, viewer.principal), context, variables);
    if (!result.errors || result.errors.length === 0) return result;
    return {
      data: result.data,
      errors: result.errors.map((e) => formatGraphQLError(e, logUnexpected)),
    } as unknown as ExecutionResult;
  }

  const done = { done: true, value: undefined } as const;
  const iterator: AsyncGenerator<ExecutionResult> = {
    async next() {
      for (;;) {
        if (finished) return done;
        if (expired || Date.now() >= viewer.expiresAt) {
          finish();
          return { done: false, value: EXPIRED };
        }
        if (options.congested?.()) {
          finish();
          options.onSlow();
          return done;
        }
        const item = queue.shift();
        if (item) {
          if (queue.length > 0) options.onBacklog?.();
          const result = await resolveEvent(item);
          // Resolving took time: the token may have expired meanwhile.
          if (finished) return done;
          if (Date.now() >= viewer.expiresAt) continue;
          tally?.delivered();
          return { done: false, value: result };
        }
        await new Promise<void>((resolve) => (waiting = resolve));
      }
    },
    return() {
      finish();
      return Promise.resolve(done);
    },
    throw(error: unknown) {
      finish();
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
    async [Symbol.asyncDispose]() {
      finish();
    },
  };
  return iterator;
}
