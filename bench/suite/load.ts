import { createRequire } from 'node:module';

/** One request of a workload; `setupRequest` runs before each send (per-request randomness). */
export interface LoadRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
  setupRequest?: (request: LoadRequest) => LoadRequest;
}

interface AutocannonResult {
  requests: { average: number };
  latency: { p50: number; p99: number };
  errors: number;
  timeouts: number;
  statusCodeStats?: Record<string, { count: number }>;
  duration: number;
}

/** The part of autocannon's programmatic API used here, typed locally (the package ships no types). */
const autocannon = createRequire(import.meta.url)('autocannon') as (options: {
  url: string;
  connections: number;
  duration: number;
  timeout: number;
  requests: LoadRequest[];
}) => Promise<AutocannonResult>;

export interface LoadFigures {
  rps: number;
  p50: number;
  p99: number;
  /** Connection errors, timeouts, and answers whose status is not one the workload expects. */
  errors: number;
  /** Every answer received, whatever its status. */
  answered: number;
  statuses: Record<string, number>;
}

export interface LoadSettings {
  url: string;
  connections: number;
  seconds: number;
  requests: LoadRequest[];
  /** Statuses that count as success: 2xx by default; W7 expects 304. */
  okStatus?: (status: number) => boolean;
  /** Requests per second across all connections (autocannon's `overallRate`); unset, as fast as answered. */
  rate?: number | undefined;
}

const is2xx = (status: number) => status >= 200 && status < 300;

/** Loads the server for `seconds` and reduces autocannon's result to the figures the report needs. */
export async function runLoad(settings: LoadSettings): Promise<LoadFigures> {
  const result = await autocannon({
    url: settings.url,
    connections: settings.connections,
    duration: settings.seconds,
    timeout: 30,
    requests: settings.requests,
    ...(settings.rate === undefined ? {} : { overallRate: settings.rate }),
  });
  const ok = settings.okStatus ?? is2xx;
  const statuses: Record<string, number> = {};
  let bad = 0;
  let answered = 0;
  let good = 0;
  for (const [status, { count }] of Object.entries(result.statusCodeStats ?? {})) {
    statuses[status] = count;
    answered += count;
    if (ok(Number(status))) good += count;
    else bad += count;
  }
  return {
    // Successful answers only: a quick 503 from overload shedding is not throughput.
    rps: good / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    // autocannon's `errors` already includes timeouts.
    errors: result.errors + bad,
    answered,
    statuses,
  };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
