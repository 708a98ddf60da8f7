import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { CHROMIUM_SKIP, launchChromium } from '../../../test/support/chromium.ts';
import { DATABASE_INDEPENDENT } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

/**
 * The API docs page in a real headless browser: Debian's `chromium` package (installed by
 * `.ci/run`), driven by playwright-core. Locally without chromium the suite is skipped with a
 * message; in CI (`CI` set) a missing browser is a failure.
 */
for (const dialect of DATABASE_INDEPENDENT) {
  describe(`API docs page in headless Chromium (${dialect.name})`, { skip: dialect.skip || CHROMIUM_SKIP }, () => {
    let t: TestServer;
    let browser: Browser;
    let page: Page;
    let person: { id: number; token: string };
    const pageErrors: string[] = [];

    before(async () => {
      t = await startTestServer(dialect);
      person = await t.createUser({ name: 'Browser Person' });
      browser = await launchChromium();
      page = await browser.newPage();
      page.on('pageerror', (error) => pageErrors.push(error.message));
    });
    after(async () => {
      await browser?.close();
      await t?.close();
    });

    it('loads /docs from this server alone and shows the v2 reference', { timeout: 60_000 }, async () => {
      const external: string[] = [];
      page.on('request', (request) => {
        if (!request.url().startsWith(t.url) && !request.url().startsWith('data:')) external.push(request.url());
      });
      const response = await page.goto(`${t.url}/docs`);
      assert.equal(response?.status(), 200);
      await page.getByRole('heading', { name: 'content-service REST API' }).waitFor();
      assert.match(await page.locator('body').innerText(), /v2\.0\.0/);
      assert.deepEqual(external, []);
      assert.deepEqual(pageErrors, []);
    });

    it('lists the users endpoints', { timeout: 60_000 }, async () => {
      // Every users operation of the served v2 document appears on the page, by its summary.
      const document = (await t.request('GET', '/api/v2/openapi.json')).body as {
        paths: Record<string, Record<string, { tags?: string[]; summary: string }>>;
      };
      const summaries = Object.values(document.paths)
        .flatMap((item) => Object.values(item))
        .filter((operation) => operation.tags?.includes('users'))
        .map((operation) => operation.summary);
      assert.ok(summaries.length >= 8, summaries.join(', '));
      await page.getByText('users', { exact: true }).first().click();
      await page.getByRole('button', { name: /Test Request.*get \/users\)/ }).waitFor({ timeout: 15_000 });
      const text = await page.locator('body').innerText();
      for (const summary of summaries) assert.ok(text.includes(summary), `"${summary}" is not on the page`);
    });

    it('sends a request from the page with a bearer token and shows the data', { timeout: 60_000 }, async () => {
      await page.getByRole('button', { name: /Test Request.*get \/users\)/ }).click();
      const token = page.getByPlaceholder('Token');
      if (!(await token.isVisible()))
        await page
          .getByRole('button', { name: /Authentication/ })
          .last()
          .click();
      await token.fill(person.token);
      const answered = page.waitForResponse((response) => new URL(response.url()).pathname === '/api/v2/users');
      await page.getByRole('button', { name: /Send get request to/ }).click();
      const response = await answered;
      // Scalar pre-fills every enum parameter with its first value: `trashed` (`only`, the trash list, for
      // admins) is a pattern, not a one-value enum, so the page sends no value a person cannot use.
      assert.equal(new URL(response.url()).searchParams.get('trashed'), null, response.url());
      assert.equal(response.status(), 200);
      assert.equal(response.request().headers().authorization, `Bearer ${person.token}`);
      assert.equal(response.headers()['api-version'], '2');
      const body = (await response.json()) as { data: { name: string }[] };
      assert.ok(body.data.some((user) => user.name === 'Browser Person'));
      // The page itself shows the answer.
      await page.getByText('200 OK').first().waitFor({ timeout: 15_000 });
      await page.getByText('"Browser Person"').first().waitFor({ timeout: 15_000 });
      assert.deepEqual(pageErrors, []);
    });

    it('switches to the deprecated v1 document', { timeout: 60_000 }, async () => {
      const v1 = await browser.newPage();
      await v1.goto(`${t.url}/docs`);
      await v1.getByRole('heading', { name: 'content-service REST API' }).waitFor();
      await v1.getByRole('button', { name: /v2 \(current\)/ }).click();
      await v1.getByRole('option', { name: /v1 \(deprecated\)/ }).click();
      await v1.getByText('v1.0.0').first().waitFor({ timeout: 15_000 });
      assert.match(await v1.locator('body').innerText(), /Deprecated.*withdrawn on Sun, 21 Nov 2027/);
      await v1.close();
    });
  });
}

/** Sets the text of a CodeMirror editor of the GraphiQL page (the query or the headers), as pasting would. */
async function setEditor(page: Page, selector: string, value: string): Promise<void> {
  const editor = page.locator(`${selector} .CodeMirror`).first();
  await editor.waitFor();
  await editor.evaluate(
    (element, text) => (element as unknown as { CodeMirror: { setValue(v: string): void } }).CodeMirror.setValue(text),
    value,
  );
}

/**
 * GraphiQL (development only, served by src/graphql): its page and every file it loads come from
 * this process, so it must render offline, under its CSP, and run a query against /graphql.
 */
for (const dialect of DATABASE_INDEPENDENT) {
  describe(`GraphiQL page in headless Chromium (${dialect.name})`, { skip: dialect.skip || CHROMIUM_SKIP }, () => {
    let t: TestServer;
    let browser: Browser;
    before(async () => {
      t = await startTestServer(dialect);
      browser = await launchChromium();
    });
    after(async () => {
      await browser?.close();
      await t?.close();
    });

    it(
      'loads every file from this server with no failed request, page error or CSP violation',
      { timeout: 60_000 },
      async () => {
        const page = await browser.newPage();
        const problems: string[] = [];
        page.on('request', (request) => {
          if (!request.url().startsWith(`${t.url}/`) && !request.url().startsWith('data:'))
            problems.push(`external: ${request.url()}`);
        });
        page.on('requestfailed', (request) =>
          problems.push(`failed: ${request.url()} ${request.failure()?.errorText}`),
        );
        page.on('response', (response) => {
          if (response.status() >= 400) problems.push(`${response.status()}: ${response.url()}`);
        });
        page.on('console', (message) => {
          if (message.type() === 'error' || /Content Security Policy|Refused to/i.test(message.text()))
            problems.push(`console: ${message.text()}`);
        });
        page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
        try {
          const introspected = page.waitForResponse(
            (response) =>
              new URL(response.url()).pathname === '/graphql' &&
              (response.request().postData() ?? '').includes('IntrospectionQuery'),
          );
          const response = await page.goto(`${t.url}/graphiql`);
          assert.equal(response?.status(), 200);
          assert.match(response?.headers()['content-security-policy'] ?? '', /script-src 'self';/);
          await page.locator('.graphiql-container').waitFor({ timeout: 30_000 });
          assert.equal((await introspected).status(), 200, 'GraphiQL read the schema');
          // The schema reached the editor: the docs explorer lists the root types.
          await page.getByRole('button', { name: /Show Documentation Explorer/i }).click();
          await page
            .locator('.graphiql-doc-explorer')
            .getByText('Query', { exact: true })
            .first()
            .waitFor({ timeout: 15_000 });
          // A dialog adds a scroll-lock <style> element: the CSP must let it (no violation below).
          await page.getByRole('button', { name: /Open settings dialog/i }).click();
          await page.getByRole('dialog').getByText('Settings', { exact: true }).waitFor();
          await page.keyboard.press('Escape');
          assert.deepEqual(problems, []);
        } finally {
          await page.close();
        }
      },
    );

    it(
      'runs a query typed on the page with a bearer token from the Headers tab and shows the data',
      { timeout: 60_000 },
      async () => {
        const person = await t.createUser({ name: 'GraphiQL Person' });
        const page = await browser.newPage();
        const pageErrors: string[] = [];
        page.on('pageerror', (error) => pageErrors.push(error.message));
        try {
          await page.goto(`${t.url}/graphiql`);
          await page.locator('.graphiql-container').waitFor({ timeout: 30_000 });
          const query = `{ user(id: "${person.id}") { id name email } }`;
          await setEditor(page, '.graphiql-query-editor', query);
          await page.locator('.graphiql-editor-tools').getByRole('button', { name: 'Headers', exact: true }).click();
          await setEditor(
            page,
            '.graphiql-editor-tool .graphiql-editor:not(.hidden)',
            JSON.stringify({ Authorization: `Bearer ${t.adminToken}` }),
          );
          const answered = page.waitForResponse(
            (response) =>
              new URL(response.url()).pathname === '/graphql' &&
              (response.request().postData() ?? '').includes('email'),
          );
          await page.locator('.graphiql-execute-button').click();
          const response = await answered;
          assert.equal(response.status(), 200);
          assert.equal(response.request().headers().authorization, `Bearer ${t.adminToken}`);
          const body = (await response.json()) as { data: { user: { id: string; name: string; email: string } } };
          assert.equal(body.data.user.name, 'GraphiQL Person');
          // The result pane shows the server's answer.
          const result = page.locator('.graphiql-response');
          await result.getByText('"GraphiQL Person"').waitFor({ timeout: 15_000 });
          assert.ok(
            (await result.innerText()).includes(body.data.user.email),
            'the result pane shows data only a signed-in caller may read',
          );
          assert.deepEqual(pageErrors, []);
        } finally {
          await page.close();
        }
      },
    );
  });
}
