/**
 * Builds the admin console (admin/, DECISIONS §20) into admin/build/: esbuild bundles admin/src/main.tsx
 * with code splitting into files named by their content's hash (served for a year, immutable), writes
 * a gzip copy beside each (served to browsers that accept it) and index.html, which loads the entry as
 * a module script (no inline script: the page's CSP allows scripts from the origin only). Run by
 * `npm run build` (and so by `npm ci`); a few seconds.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const ADMIN_BUILD = join(ROOT, 'admin', 'build');
const ASSETS = join(ADMIN_BUILD, 'assets');

export async function buildAdmin(): Promise<{ entry: string; files: string[] }> {
  rmSync(ADMIN_BUILD, { recursive: true, force: true });
  mkdirSync(ASSETS, { recursive: true });
  const result = await build({
    entryPoints: { console: join(ROOT, 'admin', 'src', 'main.tsx') },
    bundle: true,
    splitting: true,
    format: 'esm',
    minify: true,
    target: 'es2022',
    jsx: 'automatic',
    outdir: ASSETS,
    entryNames: '[name]-[hash]',
    chunkNames: 'chunk-[hash]',
    assetNames: 'asset-[hash]',
    define: { 'process.env.NODE_ENV': '"production"' },
    legalComments: 'linked',
    metafile: true,
    logLevel: 'warning',
    tsconfig: join(ROOT, 'admin', 'tsconfig.json'),
  });
  const outputs = Object.entries(result.metafile.outputs);
  const entry = outputs.find(([, output]) => output.entryPoint)?.[0];
  if (!entry) throw new Error('admin build: no entry file');
  const entryName = entry.split('/').pop()!;
  for (const name of readdirSync(ASSETS)) {
    if (!/\.(js|css|txt)$/.test(name)) continue;
    writeFileSync(join(ASSETS, `${name}.gz`), gzipSync(readFileSync(join(ASSETS, name)), { level: 9 }));
  }
  writeFileSync(
    join(ADMIN_BUILD, 'index.html'),
    [
      '<!doctype html>',
      '<html lang="en">',
      '<head>',
      '<meta charset="utf-8">',
      '<meta name="viewport" content="width=device-width, initial-scale=1">',
      '<title>content-service admin</title>',
      '<link rel="icon" href="data:,">',
      `<script type="module" src="/admin/assets/${entryName}"></script>`,
      '</head>',
      '<body>',
      '<noscript>The admin console needs JavaScript.</noscript>',
      '<div id="root"></div>',
      '</body>',
      '</html>',
      '',
    ].join('\n'),
  );
  return { entry: entryName, files: readdirSync(ASSETS) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const started = Date.now();
  const { entry, files } = await buildAdmin();
  console.log(`admin console: ${entry} and ${files.length - 1} more files in admin/build (${Date.now() - started} ms)`);
}
