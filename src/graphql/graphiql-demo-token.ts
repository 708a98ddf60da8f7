import { DEMO_EMAILS } from '../demo/demo-data.ts';

/** Where GraphiQL's demo token comes from: the auth service's token for an account, no password asked. */
export interface DemoTokenIssuer {
  issueTokenWithoutPassword(email: string): Promise<{ access_token: string } | undefined>;
}

/**
 * The Headers text GraphiQL opens with in development (DECISIONS §1, first contact): a bearer token of the
 * first demo account, so the page's default query answers at once; a fresh one on each page view. The
 * server signs it for the account as the database has it now, without a password check: checking the
 * published password would cost a scrypt hash (16 MB of native memory) for a token this server hands to
 * itself. Nothing when that account cannot sign in (no demo data, no password, suspended): the tab stays
 * empty and the query's comment says how to get a token. Never given in production (graphql.plugin.ts).
 */
export function demoTokenHeaders(auth: DemoTokenIssuer): () => Promise<string | undefined> {
  const token = demoToken(auth);
  return async () => {
    const issued = await token();
    return issued && JSON.stringify({ Authorization: `Bearer ${issued}` }, null, 2);
  };
}

/** The first demo account's bearer token, fresh on each call (GraphiQL's Headers tab, /docs in development). */
export function demoToken(auth: DemoTokenIssuer): () => Promise<string | undefined> {
  return async () => (await auth.issueTokenWithoutPassword(DEMO_EMAILS[0]!))?.access_token;
}
