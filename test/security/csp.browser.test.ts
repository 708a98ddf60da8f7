import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { CHROMIUM_SKIP, launchChromium } from '../support/chromium.ts';
import { DIALECTS } from '../support/dialects.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { SECURITY_TEST_ENV } from './security-test-env.test-support.ts';

describe(
  'the API docs page under the security headers, in headless Chromium',
  { skip: DIALECTS[0]!.skip || CHROMIUM_SKIP },
  () => {
    let t: TestServer;
    let browser: Browser;
    before(async () => {
      t = await startTestServer(DIALECTS[0]!, SECURITY_TEST_ENV);
      browser = await launchChromium();
    });
    after(async () => {
      await browser?.close();
      await t?.close();
    });

    it('renders /docs with no Content-Security-Policy violation', { timeout: 60_000 }, async () => {
      const page = await browser.newPage();
      const violations: string[] = [];
      page.on('console', (message) => {
        if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
      });
      const response = await page.goto(`${t.url}/docs`);
      assert.equal(response?.status(), 200);
      assert.match(response?.headers()['content-security-policy'] ?? '', /frame-ancestors 'none'/);
      await page.getByRole('heading', { name: 'content-service REST API' }).waitFor({ timeout: 30_000 });
      assert.deepEqual(violations, []);
    });
  },
);
