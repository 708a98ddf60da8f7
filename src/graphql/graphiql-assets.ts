import { hash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** One file the GraphiQL page loads, kept in memory with its validator once asked for. */
export interface GraphiQLAsset {
  body: Buffer;
  type: string;
  etag: string;
}

/** The URL prefix of the page's files: each name carries its package version or content hash. */
export const GRAPHIQL_ASSETS_PREFIX = '/graphiql/assets/';

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

/** The page fills the window (its own file: the page's CSP allows no inline style element). */
const PAGE_CSS = 'html, body { height: 100%; margin: 0; overflow: hidden; } #graphiql { height: 100vh; }\n';

/**
 * The query GraphiQL opens with (once a browser has its own tabs, it keeps those). GraphQL reads need a
 * token: in development the page comes with a demo account's in its Headers (graphiql.ts).
 */
export const GRAPHIQL_DEFAULT_QUERY = [
  '# The newest posts and their authors. GraphQL reads need a token in Headers below:',
  '# {"Authorization": "Bearer <token>"}. In development with the demo data, this page',
  "# puts a demo account's there (reload for a fresh one); yours comes from",
  '# POST /api/v2/auth/token {"email", "password"}.',
  '',
  '{',
  '  posts(limit: 5) {',
  '    id',
  '    title',
  '    author {',
  '      name',
  '    }',
  '  }',
  '}',
  '',
].join('\n');

/**
 * Starts GraphiQL against /graphql (its own file: the page's CSP runs no inline script). Headers
 * are not persisted, so a token typed in the Headers tab stays in the tab, not in localStorage; the
 * page's `data-headers` (a demo token in development) fills the tab on each load.
 */
const START_JS = `(function () {
  var root = document.getElementById('graphiql');
  var headers = root.getAttribute('data-headers') || undefined;
  var fetcher = GraphiQL.createFetcher({ url: '/graphql' });
  var defaultQuery = ${JSON.stringify(GRAPHIQL_DEFAULT_QUERY)};
  ReactDOM.createRoot(root).render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultQuery: defaultQuery,
      headers: headers,
      defaultHeaders: headers,
      defaultEditorToolsVisibility: 'headers',
      isHeadersEditorEnabled: true,
      shouldPersistHeaders: false,
    }),
  );
})();
`;

const require = createRequire(import.meta.url);

/**
 * A file of an installed npm package (browser-ready UMD builds only): its name carries the package's
 * version, and its content is read on the first request for it. The builds are 1.5 MB together, held
 * outside V8's heap; a server whose GraphiQL nobody opens never reads them.
 */
function packageFile(name: string, file: string, type: string): { version: string; content: () => GraphiQLAsset } {
  const manifestPath = require.resolve(`${name}/package.json`);
  const { version } = JSON.parse(readFileSync(manifestPath, 'utf8')) as { version: string };
  // The builds end by naming a source map that is not served: the comment would only make devtools ask for it.
  const read = () =>
    readFileSync(join(dirname(manifestPath), file), 'utf8').replace(
      /\n\/[/*]# sourceMappingURL=\S+(?: \*\/)?\s*$/,
      '\n',
    );
  let content: GraphiQLAsset | undefined;
  return { version, content: () => (content ??= asset(Buffer.from(read()), type)) };
}

function asset(body: Buffer, type: string): GraphiQLAsset {
  return { body, type, etag: `"${hash('sha1', body, 'base64url')}"` };
}

function ownFile(stem: string, extension: string, text: string, type: string): [string, () => GraphiQLAsset] {
  const body = Buffer.from(text);
  const content = asset(body, type);
  return [`${stem}-${hash('sha1', body, 'hex').slice(0, 12)}.${extension}`, () => content];
}

export interface GraphiQLFiles {
  /** File name (under GRAPHIQL_ASSETS_PREFIX) → its content (read on the first call). */
  assets: Map<string, () => GraphiQLAsset>;
  /** The page's file names in load order. */
  styles: string[];
  scripts: string[];
}

function loadFiles(): GraphiQLFiles {
  const react = packageFile('react', 'umd/react.production.min.js', JS);
  const reactDom = packageFile('react-dom', 'umd/react-dom.production.min.js', JS);
  const graphiqlJs = packageFile('graphiql', 'graphiql.min.js', JS);
  const graphiqlCss = packageFile('graphiql', 'graphiql.min.css', CSS);
  const entries: [string, () => GraphiQLAsset][] = [
    [`graphiql-${graphiqlCss.version}.min.css`, graphiqlCss.content],
    ownFile('page', 'css', PAGE_CSS, CSS),
    [`react-${react.version}.min.js`, react.content],
    [`react-dom-${reactDom.version}.min.js`, reactDom.content],
    [`graphiql-${graphiqlJs.version}.min.js`, graphiqlJs.content],
    ownFile('start', 'js', START_JS, JS),
  ];
  const names = entries.map(([name]) => name);
  return {
    assets: new Map(entries),
    styles: names.filter((name) => name.endsWith('.css')),
    scripts: names.filter((name) => name.endsWith('.js')),
  };
}

let loaded: GraphiQLFiles | undefined;

/** The page's files, named once per process on the first app that serves GraphiQL; each read when first asked for. */
export function graphiqlFiles(): GraphiQLFiles {
  loaded ??= loadFiles();
  return loaded;
}
