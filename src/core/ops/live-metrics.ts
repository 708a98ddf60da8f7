import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** How a live client is connected: a WebSocket (graphql-transport-ws) or a Server-Sent Events stream. */
export type LiveTransport = 'websocket' | 'sse';
const TRANSPORTS: readonly LiveTransport[] = ['websocket', 'sse'];

/** Buckets of the feed lag: a commit of this process is read at once, another instance's within a poll. */
export const FEED_LAG_BUCKETS = [0.01, 0.1, 1, 10];

/** What one transport reports; each call is a field increment (delivery is on the fan-out's hot path). */
export interface LiveTally {
  connected(): void;
  disconnected(): void;
  subscribed(): void;
  unsubscribed(): void;
  /** A payload handed to the transport for one subscriber. */
  delivered(): void;
  /** A connection (a stream) closed because its client did not read (back-pressure). */
  cutOff(): void;
}

export interface LiveMetrics {
  tally(transport: LiveTransport): LiveTally;
  /** An event handed out by the feed reader, `seconds` after it was recorded. */
  feedLag(seconds: number): void;
}

/**
 * The families of live GraphQL (subscriptions, DECISIONS §11): open connections and subscriptions by
 * transport, payloads delivered, subscribers cut off for not reading, and the feed's lag. The counts
 * live in plain fields and are copied into the families on each scrape: a delivery costs an increment,
 * not a label look-up.
 */
export function liveMetrics(registers: Registry[]): LiveMetrics {
  type Field = 'connections' | 'subscriptions' | 'delivered' | 'cutOff';
  const counts = new Map<LiveTransport, Record<Field, number>>(
    TRANSPORTS.map((transport) => [transport, { connections: 0, subscriptions: 0, delivered: 0, cutOff: 0 }]),
  );
  const labelNames = ['transport'] as const;
  const gauge = (name: string, help: string, field: Field) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers,
      collect() {
        for (const [transport, count] of counts) this.set({ transport }, count[field]);
      },
    });
  const counter = (name: string, help: string, field: Field) =>
    new Counter({
      name,
      help,
      labelNames,
      registers,
      collect() {
        this.reset();
        for (const [transport, count] of counts) this.inc({ transport }, count[field]);
      },
    });
  gauge('graphql_live_connections', 'Open GraphQL WebSocket connections and Server-Sent Events streams', 'connections');
  gauge('graphql_subscriptions_active', 'GraphQL subscriptions registered with the feed reader now', 'subscriptions');
  counter(
    'graphql_subscription_events_delivered_total',
    'Subscription payloads handed to a transport, one per event and subscriber',
    'delivered',
  );
  counter(
    'graphql_subscription_cutoffs_total',
    'Connections closed (1008) or streams cut because their client did not read (back-pressure)',
    'cutOff',
  );
  const lag = new Histogram({
    name: 'graphql_subscription_feed_lag_seconds',
    help: "From an event's recording to its hand-over to this process's subscribers (once per event)",
    buckets: FEED_LAG_BUCKETS,
    registers,
  });
  return {
    tally(transport) {
      const count = counts.get(transport)!;
      return {
        connected: () => void (count.connections += 1),
        disconnected: () => void (count.connections -= 1),
        subscribed: () => void (count.subscriptions += 1),
        unsubscribed: () => void (count.subscriptions -= 1),
        delivered: () => void (count.delivered += 1),
        cutOff: () => void (count.cutOff += 1),
      };
    },
    feedLag: (seconds) => lag.observe(Math.max(0, seconds)),
  };
}
