import type { Db } from '../../core/db/database.ts';
import { backgroundTransaction, backgroundWrite } from '../events/background-writes.ts';
import * as deliveries from './deliveries.repository.ts';
import type { ClaimedDelivery } from './delivery-fan-out.ts';
import type { AttemptResult } from './delivery-sender.ts';
import type { SuccessLog } from './delivery-successes.ts';
import { nextAttemptAt, parseRetryAfter } from './retry-schedule.ts';
import type { AttemptOutcomeLabel, WebhookMetrics } from './webhook-metrics.ts';
import * as endpoints from './webhooks.repository.ts';

/**
 * The record stage: what one attempt's result makes of its delivery (DECISIONS §10), decided apart from
 * the writing so the rule is a plain function: 2xx → succeeded (logged, written by the next background
 * transaction: delivery-successes.ts); 410 → the endpoint disabled, the delivery pending and due at once
 * (it goes first when the endpoint is enabled again); anything else → the next attempt on the schedule,
 * no earlier than a `Retry-After` on 429/503, or dead past the schedule.
 */
export type Outcome =
  | { kind: 'succeeded'; responseStatus: number }
  | { kind: 'gone' }
  | {
      kind: 'failed';
      label: Exclude<AttemptOutcomeLabel, 'succeeded' | 'gone'>;
      responseStatus: number | null;
      error: string | null;
      /** When to try again (ms); undefined: the schedule is spent, the delivery is dead. */
      nextAttemptAt: number | undefined;
    };

/** The outcome of attempt number `attempts + 1` with `result`, at `nowMs`. */
export function decideOutcome(
  result: AttemptResult,
  attempts: number,
  schedule: readonly number[],
  nowMs: number,
  random?: () => number,
): Outcome {
  if (result.kind === 'answered' && result.status >= 200 && result.status < 300)
    return { kind: 'succeeded', responseStatus: result.status };
  if (result.kind === 'answered' && result.status === 410) return { kind: 'gone' };
  const label =
    result.kind === 'refused'
      ? 'refused'
      : result.kind === 'failed' && result.error.startsWith('no answer')
        ? 'timeout'
        : 'failed';
  const status = result.kind === 'answered' ? result.status : null;
  const retryAfter =
    result.kind === 'answered' && (status === 429 || status === 503)
      ? parseRetryAfter(result.retryAfter, nowMs)
      : undefined;
  return {
    kind: 'failed',
    label,
    responseStatus: status,
    error: result.kind === 'answered' ? null : result.error,
    nextAttemptAt: nextAttemptAt(schedule, attempts + 1, nowMs, retryAfter, random),
  };
}

export interface RecordDeps {
  db: Db;
  metrics: WebhookMetrics;
  successes: SuccessLog;
  schedule: readonly number[];
}

/** Writes an attempt's outcome, only while the delivery's lease is still `holder`'s. */
export async function recordOutcome(
  deps: RecordDeps,
  claimed: ClaimedDelivery,
  holder: string,
  result: AttemptResult,
): Promise<void> {
  const { row, endpoint } = claimed;
  const nowMs = Date.now();
  const at = new Date(nowMs).toISOString();
  const outcome = decideOutcome(result, row.attempts, deps.schedule, nowMs);
  if (outcome.kind === 'succeeded') {
    deps.metrics.attempt('succeeded');
    const committed = claimed.committed ?? Date.parse((JSON.parse(claimed.payload) as { timestamp: string }).timestamp);
    deps.successes.add({ id: Number(row.id), committed, status: outcome.responseStatus, holder });
    return;
  }
  if (outcome.kind === 'gone') {
    deps.metrics.attempt('gone');
    await backgroundTransaction(deps.db, async (trx) => {
      const pending = { status: 'pending', at, responseStatus: 410, error: null, nextAttemptAt: at } as const;
      if (await deliveries.recordAttempt(trx, Number(row.id), holder, pending))
        await endpoints.disableEndpoint(trx, endpoint.id, at);
    });
    return;
  }
  deps.metrics.attempt(outcome.label);
  const next = outcome.nextAttemptAt;
  const recorded = await backgroundWrite(deps.db, (writer) =>
    deliveries.recordAttempt(writer, Number(row.id), holder, {
      status: next === undefined ? 'dead' : 'pending',
      at,
      responseStatus: outcome.responseStatus,
      error: outcome.error,
      nextAttemptAt: next === undefined ? null : new Date(next).toISOString(),
      // Dead, it keeps what it sent: a hand retry may come after its event is purged.
      ...(next === undefined ? { payload: claimed.payload } : {}),
    }),
  );
  if (recorded && next === undefined) deps.metrics.died();
}
