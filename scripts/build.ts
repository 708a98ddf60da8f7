/**
 * `npm run build` (and `prepare`, which `npm ci` runs): compiles src/ to dist/ with tsc, from scratch,
 * then stamps dist/.built. bin/content-service.js runs dist/ while the stamp is newer than every source
 * (bin/entry-point.js). Tests run the TypeScript sources directly; only the CLI prefers the build.
 */
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
rmSync(`${ROOT}dist`, { recursive: true, force: true });
const tsc = spawnSync(
  process.execPath,
  [`${ROOT}node_modules/typescript/bin/tsc`, '-p', `${ROOT}tsconfig.build.json`],
  { stdio: 'inherit' },
);
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
writeFileSync(`${ROOT}dist/.built`, `${new Date().toISOString()}\n`);
// The admin console's bundle (admin/, served at /admin): esbuild, a few seconds.
const { buildAdmin } = await import('./build-admin.ts');
await buildAdmin();
