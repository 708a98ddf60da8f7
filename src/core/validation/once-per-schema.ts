/**
 * A schema compiler that compiles each schema object once (per `part`: a schema used as a body and as a
 * query string compiles differently) and hands the same function to every route that uses it.
 *
 * Why: the route table is registered three times (`/api`, `/api/v1`, `/api/v2`, core/http/versioned-api.ts)
 * with the same TypeBox schema objects, and Fastify asks its compilers once per route, part and status code.
 * 299 of the 353 validators and most serializers were compiled again: half of building the app (about
 * 800 ms of CPU), paid by every start, every worker and every test server; on a busy machine one version's
 * registration outlasted Fastify's 10 s plugin timeout (`AVV_ERR_READY_TIMEOUT`, a CI run at load 7).
 * The compiled functions are plain and stateless between calls (a validator's `errors` is read right after
 * its call, synchronously), so sharing one between routes is what one route does between requests.
 */
export function oncePerSchema<Route extends { schema?: unknown }, Compiled>(
  compile: (route: Route) => Compiled,
  partOf: (route: Route) => string | undefined = () => undefined,
): (route: Route) => Compiled {
  const compiled = new WeakMap<object, Map<string | undefined, Compiled>>();
  return (route) => {
    const { schema } = route;
    if (schema === null || typeof schema !== 'object') return compile(route);
    let byPart = compiled.get(schema);
    if (!byPart) compiled.set(schema, (byPart = new Map()));
    const part = partOf(route);
    if (byPart.has(part)) return byPart.get(part)!;
    const result = compile(route);
    byPart.set(part, result);
    return result;
  };
}
