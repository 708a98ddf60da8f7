import createClient, { type Client } from 'openapi-fetch';
import { checkFetched } from '../support/checked-answer.ts';
import type { TestServer } from '../support/test-server.ts';
import type { paths } from './api-v2.generated.ts';

/** The typed v2 client of `t`, each answer checked against the published document as every test's are. */
export function checkedClient(t: TestServer): Client<paths> {
  return createClient<paths>({
    baseUrl: `${t.url}/api/v2`,
    fetch: async (request: Request) => {
      const response = await fetch(request);
      await checkFetched(request.method, response.clone());
      return response;
    },
  });
}
