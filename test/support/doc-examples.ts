import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * The documentation's examples as tests (the docs-examples suite): every fenced shell block (```sh,
 * ```bash, ```shell) and every GraphQL operation block (```graphql) of a Markdown page, run in the page's
 * order against a running server, as a reader pasting them one after another would.
 *
 * A block that must not run carries a marker on the line right before its fence (blank lines between are
 * allowed), saying why:
 *
 *     <!-- not run: starts the server -->
 *
 * A block that starts a server the next blocks talk to (the README's PostgreSQL section) carries
 *
 *     <!-- in the background: starts the server -->
 *
 * and runs in the background (its output in a file), the script waiting for `$BASE/readyz` before the next
 * block; the caller ends it with the script's process group. Everything else runs. A page's blocks share one `bash` (so `TOKEN=...` set by one block is there for the
 * next), with `set -Eeuo pipefail`: any failing command, unset variable or failing pipeline stage fails
 * its block. Each `curl` goes through a wrapper that keeps the command as written and adds what
 * `--fail-with-body` would check: an HTTP status of 400 or more, or an empty body where one is due (any
 * answer but 204, 304 or a HEAD's), fails the block, with the status and URL on stderr; so does an answer
 * with a `Deprecation` header (REST v1: the examples use v2). A GraphQL block is
 * sent to `$BASE/graphql` as the administrator and fails on an `errors` entry or no `data`.
 */

export interface DocBlock {
  /** The fence's language: `sh`, `bash`, `shell` or `graphql`. */
  language: string;
  /** 1-based line of the opening fence. */
  line: number;
  text: string;
  /** The reason given by a `<!-- not run: ... -->` marker, or null when the block runs. */
  notRun: string | null;
  /** Marked `<!-- in the background: ... -->`: a server the next blocks wait for. */
  background?: boolean;
  /** Marked `<!-- expect: empty ... -->`: the block's answers may be empty lists. */
  expectEmpty?: boolean;
  /** The title of the `##` or `###` section the block is in ('' before the first). */
  section?: string;
}

export const SHELL_LANGUAGES = new Set(['sh', 'bash', 'shell']);
export const RUN_LANGUAGES = new Set([...SHELL_LANGUAGES, 'graphql']);
const NOT_RUN = /^<!--\s*not run:\s*(.+?)\s*-->$/;
const BACKGROUND = /^<!--\s*in the background:\s*(.+?)\s*-->$/;
const EXPECT_EMPTY = /^<!--\s*expect: empty\b.*-->$/;

/** The fenced blocks of the languages that run (shell and GraphQL), in page order. */
export function docBlocks(markdown: string): DocBlock[] {
  const lines = markdown.split('\n');
  const blocks: DocBlock[] = [];
  let section = '';
  for (let index = 0; index < lines.length; index += 1) {
    const heading = /^#{2,3} (.+?)\s*$/.exec(lines[index]!);
    if (heading) section = heading[1]!;
    const open = /^ {0,3}(`{3,})\s*([\w-]*)/.exec(lines[index]!);
    if (!open) continue;
    const fence = open[1]!;
    const language = open[2]!.toLowerCase();
    let end = index + 1;
    while (end < lines.length && !new RegExp(`^ {0,3}${fence}\\s*$`).test(lines[end]!)) end += 1;
    if (RUN_LANGUAGES.has(language)) {
      let before = index - 1;
      while (before >= 0 && lines[before]!.trim() === '') before -= 1;
      const marker = before >= 0 ? NOT_RUN.exec(lines[before]!.trim()) : null;
      const background = before >= 0 && BACKGROUND.test(lines[before]!.trim());
      const expectEmpty = before >= 0 && EXPECT_EMPTY.test(lines[before]!.trim());
      blocks.push({
        language,
        line: index + 1,
        text: lines.slice(index + 1, end).join('\n'),
        notRun: marker ? marker[1]! : null,
        ...(background ? { background } : {}),
        ...(expectEmpty ? { expectEmpty } : {}),
        section,
      });
    }
    index = end;
  }
  return blocks;
}

export function docBlocksOf(path: string): DocBlock[] {
  return docBlocks(readFileSync(path, 'utf8'));
}

/**
 * The documented server address (`localhost:3000` or `127.0.0.1:3000`, after `http://`, `ws://` or
 * nothing) replaced by the test server's host and port.
 */
export function withBaseUrl(text: string, base: string): string {
  return text.replace(/\b(?:localhost|127\.0\.0\.1):3000\b/g, new URL(base).host);
}

/** The curl wrapper and the GraphQL runner every page's script starts with. */
const PRELUDE = String.raw`
set -Eeuo pipefail
__docs_block=0
trap 'echo "@@docs-failed block=$__docs_block exit=$? command: $BASH_COMMAND" >&2' ERR

curl() {
  local err head body rc=0 line code size method url deprecated='' empty=''
  err=$(mktemp)
  head=$(mktemp)
  body=$(mktemp)
  # The example's own --dump-header, if any, comes later and wins (it then goes unchecked for Deprecation).
  command curl --dump-header "$head" "$@" \
    --write-out '%{stderr}\n@@docs-curl %{http_code} %{size_download} %{method} %{url_effective}\n' 2>"$err" >"$body" || rc=$?
  cat "$body"
  grep -v '^@@docs-curl ' "$err" | sed '/^$/d' >&2 || true
  line=$(grep '^@@docs-curl ' "$err" | tail -n 1 || true)
  if grep -qi '^deprecation:' "$head"; then deprecated=yes; fi
  # A list whose data is empty, where the page promises data (no 'expect: empty' marker).
  if [ -z "$__docs_expect_empty" ] && [ -s "$body" ] && jq -e 'type == "object" and (.data | type) == "array" and (.data | length) == 0' "$body" >/dev/null 2>&1; then empty=yes; fi
  rm -f "$err" "$head" "$body"
  if [ "$rc" -ne 0 ]; then
    echo "@@docs-curl-failed curl exited $rc: curl $*" >&2
    return "$rc"
  fi
  read -r _ code size method url <<<"$line"
  if [ -n "$empty" ]; then
    echo "@@docs-curl-failed an empty list (HTTP $code) for $method $url: the example promises data (or mark it <!-- expect: empty -->)" >&2
    return 22
  fi
  if [ -n "$deprecated" ]; then
    echo "@@docs-curl-failed a deprecated API answered (Deprecation header) for $method $url: use /api/v2" >&2
    return 22
  fi
  if [ "$code" -ge 400 ]; then
    echo "@@docs-curl-failed HTTP $code for $method $url" >&2
    return 22
  fi
  if [ "$size" -eq 0 ] && [ "$code" != 204 ] && [ "$code" != 304 ] && [ "$method" != HEAD ]; then
    echo "@@docs-curl-failed an empty answer (HTTP $code) for $method $url" >&2
    return 22
  fi
}

# A block marked "in the background" (a server): its output in a file, the next block once it is ready.
__docs_wait_ready() {
  local pid=$1 log=$2 tries=0
  until command curl -sf "$__docs_base/readyz" >/dev/null 2>&1; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "@@docs-background-failed the server exited:" >&2
      cat "$log" >&2
      return 1
    fi
    tries=$((tries + 1))
    if [ "$tries" -gt 900 ]; then
      echo "@@docs-background-failed not ready after 90 s" >&2
      return 1
    fi
    sleep 0.1
  done
}

__docs_expect_empty=''
__docs_admin_token=''
__docs_graphql() {
  local query body answer
  query=$(cat)
  # The page's own administrator token when it made one, else one minted as the pages do.
  if [ -z "$__docs_admin_token" ] && declare -p ADMIN_TOKEN >/dev/null 2>&1; then __docs_admin_token=$ADMIN_TOKEN; fi
  if [ -z "$__docs_admin_token" ]; then __docs_admin_token=$(npm run -s cli -- token --user 1); fi
  body=$(jq -n --arg query "$query" '{query: $query}')
  answer=$(curl -sS "$__docs_base/graphql" -H "authorization: Bearer $__docs_admin_token" \
    -H 'content-type: application/json' -d "$body")
  echo "$answer"
  if ! jq -e '(.errors | not) and (.data != null)' >/dev/null <<<"$answer"; then
    echo "@@docs-graphql-failed the answer has errors or no data" >&2
    return 1
  fi
  if [ -z "$__docs_expect_empty" ] && jq -e '[.data[] | select(. == null or . == [])] | length > 0' >/dev/null <<<"$answer"; then
    echo "@@docs-graphql-failed an empty answer (a field is null or an empty list): the example promises data (or mark it <!-- expect: empty -->)" >&2
    return 1
  fi
}
`;

/** One bash script running a page's blocks in order (those not marked `not run`). */
export function pageScript(blocks: DocBlock[], base: string): string {
  const parts = [`__docs_base=${JSON.stringify(base)}`, PRELUDE];
  blocks.forEach((block, index) => {
    if (block.notRun) return;
    parts.push(`__docs_block=${index}`, `echo "@@docs-block ${index}"`, `echo "@@docs-block ${index}" >&2`);
    parts.push(`__docs_expect_empty=${block.expectEmpty ? 1 : "''"}`);
    if (block.background) {
      const log = `"\${TMPDIR:-/tmp}/docs-background-$$-${index}.log"`;
      parts.push(`{\n${withBaseUrl(block.text, base)}\n} >${log} 2>&1 &`, `__docs_wait_ready $! ${log}`);
    } else if (block.language === 'graphql') {
      parts.push(`__docs_graphql <<'__DOCS_GRAPHQL_EOF__'\n${block.text}\n__DOCS_GRAPHQL_EOF__`);
    } else {
      parts.push(withBaseUrl(block.text, base));
    }
  });
  parts.push('echo "@@docs-done"');
  return parts.join('\n');
}

export interface PageRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The index (into the page's blocks) of the block that failed, or null. */
  failedBlock: number | null;
  done: boolean;
  /** The script's process group: what a block left in the background still runs in. */
  pid: number;
}

/** Runs a page's script in `bash` (cwd: the repository, so `npm run cli` works), killed after `timeoutMs`. */
export async function runPageScript(
  script: string,
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<PageRun> {
  const child = spawn('bash', ['-c', script], {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => {
    stderr += `\n@@docs-timeout after ${options.timeoutMs} ms\n`;
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }, options.timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.on('close', (exit) => resolve(exit)));
  clearTimeout(timer);
  const done = stdout.includes('@@docs-done');
  // The ERR trap names the block; an unset variable (`set -u`) exits without it: then the last block begun.
  const failed = /@@docs-failed block=(\d+)/.exec(stderr) ?? [...stderr.matchAll(/@@docs-block (\d+)/g)].at(-1);
  return { code, stdout, stderr, failedBlock: !done && failed ? Number(failed[1]) : null, done, pid: child.pid! };
}

/** Waits until the server answers `/readyz` with 200 (migrations, bootstrap and demo data done), as a reader waits for the start-up line. */
export async function untilReady(base: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await fetch(`${base}/readyz`).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return;
    if (Date.now() > deadline) throw new Error(`${base}/readyz still answers ${status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** What a failed block printed: its own part of stdout and stderr. */
export function blockOutput(run: PageRun, index: number): string {
  const part = (text: string) => {
    const start = text.indexOf(`@@docs-block ${index}\n`);
    if (start < 0) return '';
    const next = text.indexOf('@@docs-block ', start + 1);
    return text.slice(start, next < 0 ? undefined : next).trim();
  };
  return `stdout:\n${part(run.stdout)}\nstderr:\n${part(run.stderr)}`;
}
