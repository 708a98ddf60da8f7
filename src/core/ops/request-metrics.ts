import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Registry } from 'prom-client';
import { talliedCounter, talliedHistogram } from './tallies.ts';

/**
 * Buckets of `http_request_duration_seconds`: a decade apart (fast ≤ 5 ms, normal ≤ 50 ms, slow ≤
 * 500 ms, beyond), so a timed route costs 6 series (3 bounds, +Inf, sum, count); all timed routes
 * together stay under 480 series (the metrics issue's 300, raised for DECISIONS §18 and §19's routes;
 * metrics-families.test.ts counts them; a fourth bucket would cost 7 series a route). Latency per
 * version or status is not kept: it would multiply these.
 */
export const HTTP_DURATION_BUCKETS = [0.005, 0.05, 0.5];
/** GraphQL operation names become labels only this many per process; later ones are `(other)`. */
export const MAX_OPERATION_NAMES = 100;
export const MAX_OPERATION_NAME_LENGTH = 64;

const VERSION_PREFIX = /^\/api\/v\d+(?=\/|$)/;
const UNMATCHED = 'unmatched';

interface RouteInfo {
  /** The pattern without its version prefix: `/api/v2/users/:userId` → `/api/users/:userId`. */
  label: string;
  api: boolean;
  timed: boolean;
}

/**
 * The families every answered request feeds: its count, its duration (timed routes only) and its
 * GraphQL operation. `observe` returns the request's route label.
 */
export function requestMetrics(
  registers: Registry[],
  timed: (route: string) => boolean,
): (request: FastifyRequest, reply: FastifyReply) => string {
  const requests = talliedCounter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by route pattern (without the version prefix), REST version and status',
    labelNames: ['method', 'route', 'version', 'status_code'] as const,
    registers,
  });
  const durations = talliedHistogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer an API or GraphQL request, by route pattern (without the version prefix)',
    labelNames: ['method', 'route'] as const,
    buckets: HTTP_DURATION_BUCKETS,
    registers,
  });
  const operations = talliedCounter({
    name: 'graphql_operations_total',
    help: 'GraphQL requests by operation (names of validated operations only), type and outcome',
    labelNames: ['operation_name', 'operation_type', 'outcome'] as const,
    registers,
  });

  const routes = new Map<string, RouteInfo>();
  const routeInfo = (pattern: string | undefined): RouteInfo => {
    const key = pattern ?? UNMATCHED;
    let info = routes.get(key);
    if (!info) {
      const label = pattern === undefined ? UNMATCHED : pattern.replace(VERSION_PREFIX, '/api');
      info = {
        label,
        api: label === '/api' || label.startsWith('/api/'),
        timed: pattern !== undefined && timed(label),
      };
      routes.set(key, info);
    }
    return info;
  };

  const operationNames = new Set<string>();
  const operationLabel = (name: string): string => {
    const cut = name.slice(0, MAX_OPERATION_NAME_LENGTH);
    if (operationNames.has(cut)) return cut;
    if (operationNames.size >= MAX_OPERATION_NAMES) return '(other)';
    operationNames.add(cut);
    return cut;
  };

  return (request, reply) => {
    const info = routeInfo(request.routeOptions.url);
    const { method } = request;
    const status = reply.statusCode;
    const version = info.api ? request.apiVersion : undefined;
    requests
      .cell(`${method} ${status} ${version} ${info.label}`, () =>
        info.api
          ? { method, route: info.label, version, status_code: status }
          : { method, route: info.label, status_code: status },
      )
      .add();
    if (info.timed)
      durations
        .cell(`${method} ${info.label}`, () => ({ method, route: info.label }))
        .observe(reply.elapsedTime / 1000);
    const operation = request.graphqlOperation;
    if (operation) {
      const name = operation.outcome === 'rejected' ? '(none)' : operationLabel(operation.name);
      const { type, outcome } = operation;
      operations
        .cell(`${outcome} ${type} ${name}`, () => ({ operation_name: name, operation_type: type, outcome }))
        .add();
    }
    return info.label;
  };
}
