import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { CHROMIUM_SKIP, launchChromium } from '../../test/support/chromium.ts';
import { DIALECTS } from '../../test/support/dialects.ts';
import { createProduct, placeOrder, QUIET_ENV } from '../../test/support/orders.ts';
import { startTestServer, type TestServer } from '../../test/support/test-server.ts';
import { assertAccessible, ensureAdminBuilt, signIn } from './admin-browser.test-support.ts';

const PASSWORD = 'console-password-1';

/** Waits until the list shows `count` rows. */
const rows = (page: Page, count: number) =>
  page.waitForFunction((n) => document.querySelectorAll('tbody tr').length === n, count, { timeout: 15_000 });
const KIB = 1024;

/**
 * The admin console (DECISIONS §20) in Debian's chromium, against the real service on both databases:
 * each test one screen's work as a person does it, by the controls' accessible names, with axe-core on
 * every screen it passes.
 */
for (const dialect of DIALECTS) {
  describe(`admin console in headless Chromium (${dialect.name})`, { skip: dialect.skip || CHROMIUM_SKIP }, () => {
    let t: TestServer;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    let admin: { id: number; token: string; email: string };
    const external: string[] = [];
    const pageErrors: string[] = [];
    const product = (fields: Record<string, unknown>) =>
      t.request('POST', '/api/v2/products', { token: t.adminToken, body: { stock: 10, ...fields } });

    before(async () => {
      await ensureAdminBuilt();
      t = await startTestServer(dialect, { ...QUIET_ENV, RATE_LIMIT_MAX: '100000' });
      const email = `console-${Date.now()}@example.com`;
      const created = await t.createUser({ name: 'Console Admin', email, password: PASSWORD, role: 'admin' });
      admin = { id: created.id, token: created.token, email };
      browser = await launchChromium();
      context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
      page = await context.newPage();
      page.on('request', (request) => {
        const url = request.url();
        if (!url.startsWith(t.url) && !url.startsWith('data:') && !url.startsWith('blob:')) external.push(url);
      });
      page.on('pageerror', (error) => pageErrors.push(error.message));
    });
    after(async () => {
      await browser?.close();
      await t?.close();
    });

    it(
      'signs in and charts orders by month on the dashboard, in at most 400 KiB of gzipped JavaScript',
      { timeout: 60_000 },
      async () => {
        const buyer = await t.createUser();
        const stocked = await createProduct(t, { priceCents: 1250, stock: 50 });
        for (const quantity of [1, 2]) {
          const order = await placeOrder(t, buyer.token, [{ productId: stocked.id, quantity }]);
          await t.request('POST', `/api/v2/orders/${order.body.id}/pay`, { token: buyer.token });
        }
        const scripts: { url: string; bytes: number }[] = [];
        page.on('requestfinished', async (request) => {
          if (request.resourceType() !== 'script') return;
          const sizes = await request.sizes();
          scripts.push({ url: request.url(), bytes: sizes.responseBodySize });
        });
        const first = await page.goto(`${t.url}/admin`);
        assert.equal(first?.status(), 200);
        const csp = (await first!.allHeaders())['content-security-policy'] ?? '';
        assert.match(csp, /default-src 'self'/);
        assert.match(csp, /script-src 'self'(;|$)/);
        await signIn(page, t.url, admin.email, PASSWORD);
        const chart = page.getByRole('img', { name: 'Orders by month' });
        await chart.waitFor();
        assert.equal(await chart.locator('rect').count(), 1);
        assert.equal(await chart.locator('rect').getAttribute('data-value'), '2');
        const amount = page.getByRole('img', { name: 'Amount by month' });
        assert.equal(await amount.locator('rect').getAttribute('data-value'), '37.5');
        const transferred = scripts.reduce((sum, script) => sum + script.bytes, 0);
        assert.ok(scripts.length > 0);
        assert.ok(transferred <= 400 * KIB, `first load: ${Math.round(transferred / KIB)} KiB of JavaScript`);
        console.log(
          `# first load: ${(transferred / KIB).toFixed(1)} KiB of gzipped JavaScript in ${scripts.length} files`,
        );
        mkdirSync('test-artifacts', { recursive: true });
        await page.screenshot({ path: `test-artifacts/admin-console-${dialect.name}.png` });
        await assertAccessible(page, 'Dashboard');
        assert.deepEqual(external, []);
        assert.deepEqual(pageErrors, []);
      },
    );

    it('searches, filters by facet and pages the products list by cursor', { timeout: 60_000 }, async () => {
      for (let i = 0; i < 23; i++)
        await product({ name: `Widget ${i}`, category: i % 3 ? 'tools' : 'garden', price: 5 + i });
      await product({ name: 'Quiet Keyboard', category: 'tools', price: 40 });
      await page.getByRole('menuitem', { name: 'Products' }).click();
      await page.getByRole('cell', { name: 'Widget 0', exact: true }).waitFor();
      await assertAccessible(page, 'Products');
      await page.getByRole('button', { name: 'Next page' }).click();
      await page.getByText('Page 2').waitFor();
      await page.getByRole('cell', { name: 'Quiet Keyboard' }).waitFor();
      await page.getByRole('textbox', { name: 'Search' }).fill('keyboard');
      await rows(page, 1);
      await page.getByRole('cell', { name: 'Quiet Keyboard' }).waitFor();
      await page.getByRole('textbox', { name: 'Search' }).fill('');
      await rows(page, 20);
      await page.getByRole('button', { name: /^garden \(8\)/ }).click();
      await rows(page, 8);
      const categories = await page.locator('tbody td.column-category').allInnerTexts();
      assert.deepEqual([...new Set(categories)], ['garden']);
    });
  });
}
