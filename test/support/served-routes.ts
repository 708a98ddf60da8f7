import type { FastifyInstance } from 'fastify';

/** Every `METHOD /url` the app serves, read from Fastify's own route tree (HEAD and OPTIONS aside). */
export function servedRoutes(app: FastifyInstance): string[] {
  const tree = app.printRoutes({ commonPrefix: false });
  const routes: string[] = [];
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const match = /^((?:│ {3}| {4})*)(?:├── |└── )(\S+)(?: \(([^)]+)\))?$/.exec(line);
    if (!match) continue;
    stack.length = match[1]!.length / 4;
    stack.push(match[2]!);
    for (const method of (match[3] ?? '').split(', ').filter(Boolean)) {
      if (method !== 'HEAD' && method !== 'OPTIONS') routes.push(`${method} ${stack.join('')}`);
    }
  }
  return routes;
}
