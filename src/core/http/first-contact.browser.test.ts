import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it, type TestContext } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { CHROMIUM_SKIP, launchChromium } from '../../../test/support/chromium.ts';
import { DATABASE_INDEPENDENT } from '../../../test/support/dialects.ts';
import { GRAPHQL_TEST_ENV } from '../../../test/support/graphql-test-client.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

/**
 * A newcomer's first pages in a real browser (DECISIONS §1, first contact): a development server with the
 * demo data, `/docs` and `/graphiql` opened in Debian's `chromium` (installed by `.ci/run`) driven by
 * playwright-core, checked for what a person sees: the page renders, nothing goes wrong in the console,
 * GraphiQL's default query answers data. A screenshot of each page is kept under `test-artifacts/browser/`
 * (gitignored), passing or failing. Locally without chromium the suite is skipped with a message; in CI
 * (`CI` set) a missing browser is a failure (test/support/chromium.ts).
 */

const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/browser/', import.meta.url));
const VIEWPORT = { width: 1280, height: 900 };

/** What a person would notice in the browser's console: errors logged (a failed load too) and uncaught exceptions. */
function watchConsole(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  return problems;
}

/** Saves the page as a person sees it, and names the file in the test's output. */
async function screenshot(t: TestContext, page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = `${ARTIFACTS}${name}.png`;
  try {
    await page.screenshot({ path });
    t.diagnostic(`screenshot: ${path}`);
  } catch (error) {
    t.diagnostic(`no screenshot (${error instanceof Error ? error.message : String(error)})`);
  }
}

/** Text as a person reads it, whatever the layout's line breaks. */
const flat = (text: string) => text.replace(/\s+/g, ' ');

for (const dialect of DATABASE_INDEPENDENT) {
  describe(
    `A newcomer's /docs and /graphiql in headless Chromium (${dialect.name})`,
    { skip: dialect.skip || CHROMIUM_SKIP },
    () => {
      let server: TestServer;
      let browser: Browser;

      before(async () => {
        // `npm start` on a fresh clone: development, with the demo data of a brand-new database.
        server = await startTestServer(dialect, { ...GRAPHQL_TEST_ENV, NODE_ENV: 'development', DEMO_DATA: 'true' });
        browser = await launchChromium();
      });
      after(async () => {
        await browser?.close();
        await server?.close();
      });

      it('/docs renders the v2 reference and its operations, with no console error', { timeout: 60_000 }, async (t) => {
        const document = (await server.request('GET', '/api/v2/openapi.json')).body as {
          tags: { name: string }[];
          paths: Record<string, Record<string, { tags?: string[]; summary: string }>>;
        };
        const posts = Object.entries(document.paths).flatMap(([path, item]) =>
          Object.entries(item)
            .filter(([, operation]) => operation.tags?.includes('posts'))
            .map(([method, operation]) => ({ method: method.toUpperCase(), path, summary: operation.summary })),
        );
        assert.ok(posts.length >= 3, JSON.stringify(posts));

        const context = await browser.newContext({ viewport: VIEWPORT });
        const page = await context.newPage();
        const problems = watchConsole(page);
        try {
          const response = await page.goto(`${server.url}/docs`);
          assert.equal(response?.status(), 200);
          await page.getByRole('heading', { name: 'content-service REST API' }).waitFor({ timeout: 30_000 });

          // The sidebar names every group of operations of the served document.
          const sidebar = page.getByRole('complementary', { name: 'Sidebar for content-service REST API' });
          await sidebar.waitFor();
          for (const { name } of document.tags)
            assert.equal(
              await sidebar.getByText(name, { exact: true }).count(),
              1,
              `the sidebar has no "${name}" group`,
            );

          // Opening one lists its operations: by summary in the sidebar, by method and path in the page.
          await sidebar.getByRole('link', { name: 'posts', exact: true }).click();
          await sidebar.getByText(posts[0]!.summary, { exact: true }).waitFor({ timeout: 15_000 });
          const listed = flat(await sidebar.innerText());
          for (const { summary } of posts) assert.ok(listed.includes(summary), `"${summary}" is not in the sidebar`);
          const section = page.locator('section[id="v2/tag/posts"]');
          // The card's title is "<tag> Operations", the tag's name for screen readers only.
          await section.getByText('Operations').first().waitFor({ timeout: 15_000 });
          const operations = flat(await section.innerText());
          for (const { method, path } of posts)
            assert.ok(operations.includes(`${method} ${path}`), `"${method} ${path}" is not in the posts operations`);

          await page.waitForLoadState('networkidle');
          assert.deepEqual(problems, []);
        } finally {
          await screenshot(t, page, `docs-${dialect.name}`);
          await context.close();
        }
      });

      it(
        '/graphiql runs its default query with the preset demo token and shows the demo posts, with no console error',
        { timeout: 60_000 },
        async (t) => {
          // Every post title of the demo data, as the store has them.
          const stored = await server.request('GET', '/api/v2/posts?limit=100', { token: server.adminToken });
          assert.equal(stored.status, 200);
          const { data } = stored.body as { data: { title: string }[] };
          const demoTitles = new Set(data.map((post) => post.title));
          assert.ok(demoTitles.size > 0, 'the demo data has posts');

          const context = await browser.newContext({ viewport: VIEWPORT });
          const page = await context.newPage();
          const problems = watchConsole(page);
          try {
            const response = await page.goto(`${server.url}/graphiql`);
            assert.equal(response?.status(), 200);
            await page.locator('.graphiql-container').waitFor({ timeout: 30_000 });

            // It opens on its default query, with a demo account's token in the Headers tab.
            await page.locator('.graphiql-query-editor .CodeMirror-code').getByText('{').first().waitFor();
            const headers = page.locator('.graphiql-editor-tool .graphiql-editor:not(.hidden)');
            const preset = /"Authorization": "(Bearer [^"]+)"/.exec(flat(await headers.innerText()))?.[1];
            assert.ok(preset, 'the Headers tab shows a bearer token');

            // Run it as a person does, with the run button (not the schema's introspection, sent on load).
            const answered = page.waitForResponse(
              (answer) =>
                new URL(answer.url()).pathname === '/graphql' &&
                !(answer.request().postData() ?? '').includes('IntrospectionQuery'),
              { timeout: 15_000 },
            );
            await page.locator('.graphiql-execute-button').click();
            const answer = await answered;
            assert.equal(answer.request().headers().authorization, preset, 'sent with the token of the Headers tab');

            // The result pane shows data, and no error.
            const result = page.locator('.graphiql-response');
            await result
              .getByText(/"(data|errors)"/)
              .first()
              .waitFor({ timeout: 15_000 });
            const shown = flat(await result.innerText());
            assert.ok(!shown.includes('"errors"'), `the result pane shows errors: ${shown}`);
            assert.equal(answer.status(), 200);
            const body = (await answer.json()) as { data?: { posts?: { title: string }[] } };
            const titles = body.data?.posts?.map((post) => post.title) ?? [];
            assert.ok(titles.length > 0, `no posts in the answer: ${JSON.stringify(body)}`);
            for (const title of titles) {
              assert.ok(demoTitles.has(title), `"${title}" is not a post of the demo data`);
              assert.ok(shown.includes(`"${title}"`), `"${title}" is not in the result pane`);
            }

            await page.waitForLoadState('networkidle');
            assert.deepEqual(problems, []);
          } finally {
            await screenshot(t, page, `graphiql-${dialect.name}`);
            await context.close();
          }
        },
      );
    },
  );
}
