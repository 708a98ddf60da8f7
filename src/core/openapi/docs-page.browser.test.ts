import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { DIALECTS } from '../../test-support/dialects.ts';
import { startTestServer, type TestServer } from '../../test-support/test-server.ts';

/**
 * The API docs page in a real headless browser: Debian's `chromium` package (installed by
 * `.ci/run`), driven by playwright-core. Locally without chromium the suite is skipped with a
 * message; in CI (`CI` set) a missing browser is a failure.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
const missing = !existsSync(CHROMIUM);
const skip = missing && !process.env.CI ? `no browser at ${CHROMIUM}: apt-get install -y chromium (required in CI)` : false;

for (const dialect of DIALECTS) {
  describe(`API docs page in headless Chromium (${dialect.name})`, { skip: dialect.skip || skip }, () => {
    let t: TestServer;
    let browser: Browser;
    let page: Page;
    let person: { id: number; token: string };
    const pageErrors: string[] = [];

    before(async () => {
      assert.ok(!missing, `CI needs Debian's chromium at ${CHROMIUM} (.ci/run installs it)`);
      t = await startTestServer(dialect);
      person = await t.createUser({ name: 'Browser Person' });
      browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, timeout: 60_000 });
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
      const document = (await t.request('GET', '/api/v2/openapi.json')).body as { paths: Record<string, Record<string, { tags?: string[]; summary: string }>> };
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
      if (!(await token.isVisible())) await page.getByRole('button', { name: /Authentication/ }).last().click();
      await token.fill(person.token);
      const answered = page.waitForResponse((response) => new URL(response.url()).pathname === '/api/v2/users');
      await page.getByRole('button', { name: /Send get request to/ }).click();
      const response = await answered;
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

/**
 * GraphiQL (development only, served by src/graphql). It is covered here once its page is served
 * from this process: while it loads GraphiQL from a CDN, which no test machine can reach, the
 * test is reported as a todo instead of failing.
 */
describe('GraphiQL page in headless Chromium', { skip: DIALECTS[0]!.skip || skip }, () => {
  let t: TestServer;
  let browser: Browser;
  let html = '';
  before(async () => {
    t = await startTestServer(DIALECTS[0]!);
    const res = await t.request('GET', '/graphiql');
    html = res.status === 200 ? res.text : '';
    if (!missing) browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, timeout: 60_000 });
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  const external = () => /<(script|link)[^>]+(src|href)="https?:\/\//i.test(html);

  it('renders GraphiQL and runs a query from the page', { timeout: 60_000 }, async (test) => {
    if (!html) return test.skip('no /graphiql page on this server');
    if (external()) test.todo('GraphiQL loads its scripts from a CDN, unreachable offline; serve them locally to test it here');
    const page = await browser.newPage();
    try {
      await page.goto(`${t.url}/graphiql`);
      await page.locator('.graphiql-container').waitFor({ timeout: external() ? 5_000 : 15_000 });
      await page.locator('.graphiql-query-editor .CodeMirror').first().click();
      await page.keyboard.press('Control+A');
      await page.keyboard.type('{ __typename');
      const answered = page.waitForResponse((response) => new URL(response.url()).pathname === '/graphql');
      await page.locator('.graphiql-execute-button').click();
      const response = await answered;
      assert.equal(response.status(), 200);
      assert.deepEqual(await response.json(), { data: { __typename: 'Query' } });
    } finally {
      await page.close();
    }
  });
});
