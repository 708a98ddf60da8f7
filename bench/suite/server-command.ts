import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The `start` script of the package in `dir`: its environment assignments, then `exec node` and its arguments. */
function startScript(dir: string): { env: Record<string, string>; args: string[] } {
  const { scripts } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const words = scripts.start.trim().split(/\s+/);
  const env: Record<string, string> = {};
  // `NAME=value ... exec node ...`: the shell hands its process to node (so signals reach the server), with
  // those variables in its environment (read by the C library before any JavaScript runs).
  while (/^[A-Z_][A-Z0-9_]*=/.test(words[0] ?? '')) {
    const [name, ...value] = words.shift()!.split('=');
    env[name!] = value.join('=');
  }
  if (words[0] === 'exec') words.shift();
  const [command, ...args] = words;
  if (command !== 'node') throw new Error(`The start script must run node, not ${command}`);
  return { env, args };
}

/**
 * The server's command line after `node`, taken from the `start` script of the package in `dir`, so
 * the benchmarks run the server exactly as `npm start` does (its V8 flags included).
 */
export function serverArgs(dir = '.'): string[] {
  return startScript(dir).args;
}

/** The environment variables the `start` script sets for the server (add them to a spawned server's). */
export function serverEnv(dir = '.'): Record<string, string> {
  return startScript(dir).env;
}
