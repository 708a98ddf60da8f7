import type { TestResponse, TestServer } from './test-server.ts';

export interface GqlOptions {
  variables?: Record<string, unknown>;
  operationName?: string;
  token?: string | undefined;
  accept?: string;
}

/** Posts one GraphQL operation to the running test server, as a client library would. */
export function gql(t: TestServer, query: string, options: GqlOptions = {}): Promise<TestResponse> {
  const body: Record<string, unknown> = { query };
  if (options.variables) body.variables = options.variables;
  if (options.operationName) body.operationName = options.operationName;
  return t.request('POST', '/graphql', {
    body,
    token: options.token,
    headers: options.accept ? { accept: options.accept } : {},
  });
}

/** The `extensions.code` of each error of a response, in order. */
export function errorCodes(response: TestResponse): string[] {
  return (response.body?.errors ?? []).map((e: { extensions?: { code?: string } }) => e.extensions?.code);
}

/** GET /graphql with the parameters in the query string. */
export function gqlGet(
  t: TestServer,
  params: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<TestResponse> {
  return t.request('GET', `/graphql?${new URLSearchParams(params)}`, { headers });
}

/**
 * Test servers for GraphQL suites: no background report polling (statement counts stay exact), no
 * load shedding (a busy test machine must not turn answers into 503s) and a rate limit the suites'
 * deliberately expensive operations cannot reach (they are charged by cost).
 */
export const GRAPHQL_TEST_ENV = {
  REPORT_WORKER: 'false',
  OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
  RATE_LIMIT_MAX: '10000000',
} as const;
