import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The server's command line after `node`, taken from the `start` script of the package in `dir`, so
 * the benchmarks run the server exactly as `npm start` does (its V8 flags included).
 */
export function serverArgs(dir = '.'): string[] {
  const { scripts } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { scripts: { start: string } };
  // `exec node ...`: the shell hands its process to node (so signals reach the server); same command.
  const [command, ...args] = scripts.start
    .trim()
    .replace(/^exec\s+/, '')
    .split(/\s+/);
  if (command !== 'node') throw new Error(`The start script must run node, not ${command}`);
  return args;
}
