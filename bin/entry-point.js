// Which code the CLI runs. Plain JavaScript, like bin/content-service.js, so any Node can read it.
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The compiled build `dist/` (tsc, made by `npm run build`; `npm ci` runs it through `prepare`) when it
 * is at least as new as every TypeScript file under `src/`; otherwise the sources themselves, through
 * Node's type stripping, with a line saying why. The build is what `npm start` should run: type
 * stripping loads a WebAssembly compiler that stays in memory (~45 MB of RSS for this code base,
 * bench/RESULTS.md, "Memory"). Falling back instead of running a stale build means an edited source is
 * never ignored. CONTENT_SERVICE_FROM_SOURCE=1 asks for the sources (`npm run dev`, which watches them).
 */
export function entryPoint(root, env = process.env) {
  const source = new URL('src/cli.ts', root).href;
  if (env.CONTENT_SERVICE_FROM_SOURCE === '1') return { url: source };
  let builtAt;
  try {
    statSync(new URL('dist/cli.js', root));
    builtAt = statSync(new URL('dist/.built', root)).mtimeMs;
  } catch {
    return {
      url: source,
      warning:
        'No compiled build in dist/: running the TypeScript sources (`npm run build` compiles them; they use less memory).',
    };
  }
  const newest = newestSource(fileURLToPath(new URL('src', root)));
  if (newest.mtimeMs > builtAt) {
    return {
      url: source,
      warning: `dist/ is older than ${relative(fileURLToPath(root), newest.path)}: running the TypeScript sources (\`npm run build\` compiles them again).`,
    };
  }
  return { url: new URL('dist/cli.js', root).href };
}

function newestSource(dir) {
  let newest = { mtimeMs: 0, path: '' };
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    // Tests and their support are not in the build (tsconfig.build.json): editing one leaves it current.
    if (!entry.isFile() || !entry.name.endsWith('.ts') || /\.test(-support)?\.ts$/.test(entry.name)) continue;
    const path = join(entry.parentPath, entry.name);
    const { mtimeMs } = statSync(path);
    if (mtimeMs > newest.mtimeMs) newest = { mtimeMs, path };
  }
  return newest;
}
