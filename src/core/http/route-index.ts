import FindMyWay, { type HTTPMethod } from 'find-my-way';

const METHODS: HTTPMethod[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * A second router holding only the route shapes, so that a request the app cannot serve can be
 * told apart: an unknown path (404) or a known path with another method (405 with `Allow`). A path
 * parameter declared an integer matches digits only here (`/reports/generate` is no `/reports/:reportId`),
 * so `Allow` lists only the methods that can answer that path.
 */
export function createRouteIndex() {
  const router = FindMyWay();
  return {
    /** `versions`: the API versions the route answers in (all when absent), for `/api` whose version is negotiated. */
    add(method: string, url: string, integerParams: readonly string[] = [], versions?: readonly number[]): void {
      // A catch-all (the CORS preflight route `OPTIONS *`) says nothing about which paths exist.
      if (url === '*' || url === '/*') return;
      const shape = url.replace(/:(\w+)/g, (whole, name: string) =>
        integerParams.includes(name) ? `${whole}(^\\d+$)` : whole,
      );
      if (router.hasRoute(method as HTTPMethod, shape)) return;
      router.on(method as HTTPMethod, shape, () => {}, { versions });
    },
    /** The methods that answer `url` in API `version` (a route of other versions only does not count). */
    allowedMethods(url: string, version?: number): string[] {
      const path = url.split('?')[0] ?? url;
      return METHODS.filter((method) => {
        const found = router.find(method, path);
        const versions = (found?.store as { versions?: readonly number[] } | undefined)?.versions;
        return found !== null && (!versions || version === undefined || versions.includes(version));
      });
    },
  };
}

export type RouteIndex = ReturnType<typeof createRouteIndex>;

/** The path parameters a route's params schema declares integers (ids): digits only. */
export function integerParamsOf(params: unknown): string[] {
  const properties = (params as { properties?: Record<string, { type?: unknown }> } | undefined)?.properties;
  if (!properties) return [];
  return Object.entries(properties)
    .filter(([, schema]) => schema.type === 'integer')
    .map(([name]) => name);
}
