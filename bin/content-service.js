#!/usr/bin/env node
// The command-line entry (npm scripts and `bin`). Plain JavaScript that any Node can parse, so that an
// older Node (a system /usr/bin/node v20, say) stops with one clear line instead of failing on the
// `.ts` extension (ERR_UNKNOWN_FILE_EXTENSION) before a line of the service runs.
const REQUIRED_MAJOR = 24;
const major = Number(process.versions.node.split('.')[0]);
if (major < REQUIRED_MAJOR) {
  console.error(
    `content-service needs Node ${REQUIRED_MAJOR} or newer; this is Node ${process.versions.node} (${process.execPath}). ` +
      "Run it through npm (npm start, npm run cli -- <command>), which uses the project's Node from node_modules/.bin.",
  );
  process.exit(1);
}
const { entryPoint } = await import('./entry-point.js');
const entry = entryPoint(new URL('..', import.meta.url));
if (entry.warning) console.error(entry.warning);
await import(entry.url);
