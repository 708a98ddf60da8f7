import { now } from '../../core/clock.ts';
import type { Expression, SqlBool } from 'kysely';
import type { Db } from '../../core/db/database.ts';
import { backgroundWrite } from './background-writes.ts';
import type { FeedEvent, FeedPosition } from './event.ts';
import { isBefore, readFeedEnd } from './consumer-skip.ts';
import * as repo from './events.repository.ts';

/** How a consumer of the outbox (the webhook fan-out, the NATS publisher) takes its next events. */
export interface ConsumeOptions {
  /** The consumer's name in `event_consumers`. */
  consumer: string;
  /** This instance (a polling worker's id): the lease's holder. */
  holder: string;
  /** Events per batch. */
  limit: number;
  /** How long the lease lasts without a renewal: an instance that dies gives the consumer up after it. */
  leaseMs: number;
}

/**
 * The leases of the outbox's consumers (`event_consumers`): one instance at a time takes a consumer's
 * next events, from where the consumer has got to, and moves it past them.
 */
export function createConsumerLeases(
  db: Db,
  /** The feed's no-skip read: the next `limit` events after `after`. */
  readNext: (after: FeedPosition, limit: number) => Promise<FeedEvent[]>,
) {
  /**
   * When each lease this process holds is due for renewal: a lease is renewed (a write) once half of it
   * has passed, not on every step; in between a step only reads where the consumer is, while this
   * process still holds it. A write per step cost a commit per step of every consumer (on SQLite a
   * synchronous one). While a lease is this process's, no other instance can take it (only a lease run
   * out can be), and a renewal comes before it runs out.
   */
  const renewals = new Map<string, number>();
  const keyOf = (consume: Pick<ConsumeOptions, 'consumer' | 'holder'>) => `${consume.consumer}\u0000${consume.holder}`;

  /** Where the consumer is, if this instance holds (or now takes or renews) its lease; undefined otherwise. */
  async function heldPosition(consume: ConsumeOptions): Promise<FeedPosition | undefined> {
    const at = Date.now();
    const key = keyOf(consume);
    if (at < (renewals.get(key) ?? 0)) {
      const position = await repo.findHeldPosition(db, consume.consumer, consume.holder);
      if (position) return position;
    }
    const position = await backgroundWrite(db, (writer) =>
      repo.claimConsumer(writer, {
        consumer: consume.consumer,
        holder: consume.holder,
        now: new Date(at).toISOString(),
        leaseUntil: new Date(at + consume.leaseMs).toISOString(),
      }),
    );
    if (position) renewals.set(key, at + consume.leaseMs / 2);
    else renewals.delete(key);
    return position;
  }

  /** The consumer's next events, if this instance holds (takes or renews) its lease; none otherwise. */
  async function claimNextBatch(consume: ConsumeOptions): Promise<FeedEvent[]> {
    const position = await heldPosition(consume);
    return position ? readNext(position, consume.limit) : [];
  }

  /**
   * When `onlyIf` holds (no one to hand events to), moves the consumer to the feed's last event without
   * reading the events, if this instance holds its lease; true then (also when nothing was unread), false
   * when `onlyIf` does not hold (read the batch instead) or the lease is another's.
   */
  async function skipAhead(consume: ConsumeOptions, onlyIf: Expression<SqlBool>): Promise<boolean> {
    const position = await heldPosition(consume);
    if (!position) return false;
    const end = await readFeedEnd(db, onlyIf);
    if (!end.holds) return false;
    if (!end.last || !isBefore(position, end.last)) return true;
    const move = { consumer: consume.consumer, holder: consume.holder, position: end.last, now: now() };
    return backgroundWrite(db, (writer) => repo.advanceConsumer(writer, move, onlyIf));
  }

  /** Moves the consumer past `batch`; throws when another instance has taken the lease over. */
  async function advance(writer: Db, consume: ConsumeOptions, batch: FeedEvent[]): Promise<void> {
    const moved = await repo.advanceConsumer(writer, {
      consumer: consume.consumer,
      holder: consume.holder,
      position: batch.at(-1)!.position,
      now: now(),
    });
    if (!moved) {
      renewals.delete(keyOf(consume));
      throw new Error(`event consumer ${consume.consumer}: the lease was taken over by another instance`);
    }
  }

  return {
    claimNextBatch,
    skipAhead,
    advance,
    /** Gives the consumer's lease up (at stop), so another instance goes on at once. */
    release(consumer: string, holder: string): Promise<void> {
      renewals.delete(keyOf({ consumer, holder }));
      return backgroundWrite(db, (writer) => repo.releaseConsumer(writer, consumer, holder));
    },
  };
}
