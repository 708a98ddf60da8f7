import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { ADMIN_BUILD_DIR } from '../../src/admin-console/admin-console.ts';

const ADMIN_SOURCES = new URL('../../admin/src/', import.meta.url);

/** Builds the console when its build is missing or older than a source (a checkout edited since `npm ci`). */
export async function ensureAdminBuilt(): Promise<void> {
  const index = join(ADMIN_BUILD_DIR, 'index.html');
  const built = existsSync(index) ? statSync(index).mtimeMs : 0;
  const newest = Math.max(...readdirSync(ADMIN_SOURCES).map((name) => statSync(new URL(name, ADMIN_SOURCES)).mtimeMs));
  if (built > newest) return;
  const { buildAdmin } = await import('../../scripts/build-admin.ts');
  await buildAdmin();
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeResult {
  violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[]; html: string }[] }[];
}

/**
 * axe-core on the screen as it is: no serious or critical violation (DECISIONS §20). The engine is put
 * in through the debugging protocol (as a browser extension would be), so the page's CSP stays in force.
 */
export async function assertAccessible(page: Page, screen: string): Promise<void> {
  // Once the screen has settled: a button fading from disabled to its colour is measured at its end, not mid-way.
  await page.waitForFunction(() =>
    (
      globalThis as unknown as {
        document: { getAnimations(): { playState: string; effect: { getTiming(): { iterations?: number } } | null }[] };
      }
    ).document
      .getAnimations()
      .every((animation) => animation.playState !== 'running' || animation.effect?.getTiming().iterations === Infinity),
  );
  await page.evaluate(AXE_SOURCE);
  const result = (await page.evaluate("axe.run(document, { resultTypes: ['violations'] })")) as AxeResult;
  const serious = result.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help} at ${violation.nodes
          .map((node) => node.html.slice(0, 160))
          .slice(0, 3)
          .join(' | ')}`,
    );
  assert.deepEqual(serious, [], `${screen}: axe-core found serious or critical violations`);
}

/** Signs in through the console's form and waits for the dashboard. */
export async function signIn(page: Page, url: string, email: string, password: string): Promise<void> {
  await page.goto(`${url}/admin/`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: /Orders by month/ }).waitFor({ timeout: 20_000 });
}
