import FindMyWay, { type HTTPMethod } from 'find-my-way';

const METHODS: HTTPMethod[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * A second router holding only the route shapes, so that a request the app cannot serve can be
 * told apart: an unknown path (404) or a known path with another method (405 with `Allow`).
 */
export function createRouteIndex() {
  const router = FindMyWay();
  return {
    add(method: string, url: string): void {
      // A catch-all (the CORS preflight route `OPTIONS *`) says nothing about which paths exist.
      if (url === '*' || url === '/*') return;
      if (router.hasRoute(method as HTTPMethod, url)) return;
      router.on(method as HTTPMethod, url, () => {});
    },
    allowedMethods(url: string): string[] {
      const path = url.split('?')[0] ?? url;
      return METHODS.filter((method) => router.find(method, path) !== null);
    },
  };
}
