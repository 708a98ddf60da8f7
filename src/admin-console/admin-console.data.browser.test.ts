import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { CHROMIUM_SKIP, launchChromium } from '../../test/support/chromium.ts';
import { DIALECTS } from '../../test/support/dialects.ts';
import { QUIET_ENV } from '../../test/support/orders.ts';
import { startTestServer, type TestServer } from '../../test/support/test-server.ts';
import { assertAccessible, ensureAdminBuilt, signIn } from '../../test/support/admin-browser.ts';

const PASSWORD = 'console-password-2';

/**
 * The console's screens for data that comes and goes (DECISIONS §18-§20): the trash, an item's history, an
 * import with its dry run, and an export, in Debian's chromium against the real service on both databases,
 * each checked through the API afterwards, with axe-core on every screen.
 */
for (const dialect of DIALECTS) {
  describe(`admin console: trash, import, export (${dialect.name})`, { skip: dialect.skip || CHROMIUM_SKIP }, () => {
    let t: TestServer;
    let browser: Browser;
    let page: Page;
    const pageErrors: string[] = [];
    const products = async (category: string) =>
      (await t.request('GET', `/api/v2/products?category=${category}&limit=100`, { token: t.adminToken })).body
        .data as { id: number; name: string; price: number }[];

    before(async () => {
      await ensureAdminBuilt();
      t = await startTestServer(dialect, { ...QUIET_ENV, RATE_LIMIT_MAX: '100000' });
      const email = `console-data-${Date.now()}@example.com`;
      await t.createUser({ name: 'Console Admin', email, password: PASSWORD, role: 'admin' });
      browser = await launchChromium();
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
      page = await context.newPage();
      page.on('pageerror', (error) => pageErrors.push(error.message));
      await signIn(page, t.url, email, PASSWORD);
    });
    after(async () => {
      await browser?.close();
      await t?.close();
    });

    it('restores a deleted product from the trash', { timeout: 60_000 }, async () => {
      const made = await t.request('POST', '/api/v2/products', {
        token: t.adminToken,
        body: { name: 'Mistaken Delete', category: 'trash-screen', price: 4, stock: 1 },
      });
      const id = made.body.id as number;
      assert.equal((await t.request('DELETE', `/api/v2/products/${id}`, { token: t.adminToken })).status, 204);
      await page.getByRole('menuitem', { name: 'Trash' }).click();
      const restore = page.getByRole('button', { name: `Restore products ${id}` });
      await restore.waitFor();
      await assertAccessible(page, 'Trash');
      await restore.click();
      await restore.waitFor({ state: 'detached' });
      const back = await t.request('GET', `/api/v2/products/${id}`);
      assert.equal(back.status, 200, back.text);
      assert.equal(back.body.name, 'Mistaken Delete');
    });

    it(
      'shows a product’s history as a diff, paged, and restores an older revision with If-Match (a change since is refused)',
      { timeout: 60_000 },
      async () => {
        const admin = { token: t.adminToken };
        const made = await t.request('POST', '/api/v2/products', {
          ...admin,
          body: { name: 'History Lamp', category: 'history-screen', price: 10, stock: 1 },
        });
        const id = made.body.id as number;
        const edit = async (body: Record<string, unknown>) =>
          assert.equal((await t.request('PATCH', `/api/v2/products/${id}`, { ...admin, body })).status, 200);
        const revisions = async () =>
          (await t.request('GET', `/api/v2/products/${id}/revisions?limit=100`, admin)).body.data as {
            rev: number;
            op: string;
          }[];
        await edit({ price: 12 });
        await edit({ name: 'History Lamp Pro' });
        // 22 revisions: the screen's first page (20) ends at the rename, the second holds the price change.
        for (let stock = 2; stock <= 20; stock++) await edit({ stock });
        const [, ...older] = await revisions();
        const renamed = older[18]!;
        const repriced = older[19]!;

        await page.getByRole('menuitem', { name: 'Products' }).click();
        await page.getByRole('textbox', { name: 'Search' }).fill('History Lamp');
        await page
          .getByRole('row', { name: /History Lamp Pro/ })
          .getByRole('link', { name: 'History' })
          .click();
        const table = (rev: number) => page.getByRole('table', { name: `Changes of revision ${rev}` });
        const changes = (rev: number, field: string) =>
          table(rev)
            .getByRole('row', { name: new RegExp(`^${field}\\b`) })
            .getByRole('cell')
            .allInnerTexts();
        await table(renamed.rev).waitFor();
        assert.deepEqual(await changes(renamed.rev, 'name'), ['name', '"History Lamp"', '"History Lamp Pro"']);
        await page.getByRole('button', { name: 'Older revisions' }).click();
        await table(repriced.rev).waitFor();
        assert.deepEqual(await changes(repriced.rev, 'price'), ['price', '10', '12']);
        await assertAccessible(page, 'History');

        // Changed by someone else after the screen read it: the restore is refused, nothing is written.
        await edit({ stock: 21 });
        await page.getByRole('button', { name: `Restore revision ${repriced.rev}` }).click();
        await page.getByText(/changed since its history was shown/).waitFor();
        assert.equal((await t.request('GET', `/api/v2/products/${id}`)).body.name, 'History Lamp Pro');

        // Read again (the newest revision is that change), the restore goes through: the old values are back,
        // as a new revision.
        const stocked = (await revisions())[0]!;
        await page.getByRole('button', { name: 'Newer revisions' }).click();
        await table(stocked.rev).waitFor();
        assert.deepEqual(await changes(stocked.rev, 'stock'), ['stock', '20', '21']);
        await page.getByRole('button', { name: 'Older revisions' }).click();
        await page.getByRole('button', { name: `Restore revision ${repriced.rev}` }).click();
        await page.getByText(`Restored revision ${repriced.rev}`).waitFor();
        const now = await t.request('GET', `/api/v2/products/${id}`);
        assert.deepEqual([now.body.name, now.body.price, now.body.stock], ['History Lamp', 12, 1]);
        const [reverted] = await revisions();
        assert.equal(reverted!.op, 'revert');
        await table(reverted!.rev).waitFor();
        assert.deepEqual(await changes(reverted!.rev, 'name'), ['name', '"History Lamp Pro"', '"History Lamp"']);
      },
    );

    it(
      'imports a CSV with a bad row: the dry run names the line and writes nothing, then the import writes the good rows',
      {
        timeout: 60_000,
      },
      async () => {
        await page.getByRole('menuitem', { name: 'Imports' }).click();
        await page.getByRole('button', { name: 'Dry run' }).waitFor();
        // The import is offered only after a dry run of the same file.
        assert.equal(await page.getByRole('button', { name: 'Import', exact: true }).isDisabled(), true);
        await page.locator('input[type="file"]').setInputFiles({
          name: 'catalogue.csv',
          mimeType: 'text/csv',
          buffer: Buffer.from('name,category,price,stock\nGood Lamp,csv-screen,12.5,3\nBad Lamp,csv-screen,cheap,1\n'),
        });
        await page.getByRole('button', { name: 'Dry run' }).click();
        const errors = page.getByRole('table', { name: 'Error lines' });
        await errors.waitFor({ timeout: 20_000 }).catch(async (error: Error) => {
          const shown = await page.locator('main').innerText();
          throw new Error(`${error.message}\nThe screen: ${shown}`);
        });
        const cells = await errors.getByRole('row').nth(1).getByRole('cell').allInnerTexts();
        assert.deepEqual(cells.slice(0, 2), ['3', 'price'], cells.join(' | '));
        await assertAccessible(page, 'Imports');
        assert.deepEqual(await products('csv-screen'), []);

        await page.getByRole('button', { name: 'Import', exact: true }).click();
        await page.getByText(/^Import \d+: done/).waitFor({ timeout: 20_000 });
        const written = await products('csv-screen');
        assert.deepEqual(
          written.map(({ name, price }) => [name, price]),
          [['Good Lamp', 12.5]],
        );
      },
    );

    it(
      'exports the filtered list as CSV, every matching row, a formula cell escaped',
      { timeout: 60_000 },
      async () => {
        for (const name of ['Export One', 'Export Two', '=HYPERLINK("x")'])
          await t.request('POST', '/api/v2/products', {
            token: t.adminToken,
            body: { name, category: 'export-screen', price: 2, stock: 1 },
          });
        await page.getByRole('menuitem', { name: 'Products' }).click();
        await page.getByRole('textbox', { name: 'Search' }).waitFor();
        await page.goto(
          `${t.url}/admin/#/products?filter=${encodeURIComponent(JSON.stringify({ category: 'export-screen' }))}`,
        );
        await page.getByRole('cell', { name: 'Export Two' }).waitFor();
        const [download] = await Promise.all([
          page.waitForEvent('download'),
          page.getByRole('button', { name: 'Export', exact: true }).click(),
        ]);
        const csv = await readFile((await download.path())!, 'utf8');
        const lines = csv.trim().split(/\r?\n/);
        assert.match(lines[0]!, /\bname\b/);
        assert.equal(lines.length, 4, csv);
        assert.ok(lines.some((line) => line.includes('Export One')));
        assert.ok(
          lines.some((line) => line.includes(`'=HYPERLINK`)),
          csv,
        );
        assert.deepEqual(pageErrors, []);
      },
    );
  });
}
