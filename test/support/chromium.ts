import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/**
 * Debian's `chromium` (installed by `.ci/run`) driven by playwright-core, for the browser suites. Locally
 * without the browser a suite is skipped with `CHROMIUM_SKIP`'s message; in CI (`CI` set) a missing
 * browser is a failure (`launchChromium` asserts it).
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

// No background, QUIC, sync or update traffic: the machine's network is closed, and each refused
// connection would be noise. Playwright gives each launch a fresh, temporary --user-data-dir.
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const missing = !existsSync(CHROMIUM_PATH);

/** The `skip` of a browser suite: a reason locally without the browser, else false. */
export const CHROMIUM_SKIP: string | false =
  missing && !process.env.CI ? `no browser at ${CHROMIUM_PATH}: apt-get install -y chromium (required in CI)` : false;

export function launchChromium(): Promise<Browser> {
  assert.ok(!missing, `CI needs Debian's chromium at ${CHROMIUM_PATH} (.ci/run installs it)`);
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: ARGS, timeout: 60_000 });
}
