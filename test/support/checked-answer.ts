import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { checkContract } from './openapi-validator.ts';

/**
 * The clients of the tests receive answers in three shapes (a fetch `Response`, node:http's
 * `IncomingMessage`, bytes read off a socket); these turn each into what `checkContract` checks,
 * check it and hand it back, so every client proves the published contract the same way.
 */

export interface CheckedAnswer {
  status: number;
  headers: Headers;
  // Tests read arbitrary JSON bodies; `any` keeps the assertions short.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  text: string;
}

/** Checks one answer against the document of its version; its body is parsed when its type says JSON. */
export async function checkAnswer(
  method: string,
  path: string,
  answer: { status: number; headers: Headers; text: string },
): Promise<CheckedAnswer> {
  const body: unknown =
    answer.text && (answer.headers.get('content-type') ?? '').includes('json') ? JSON.parse(answer.text) : undefined;
  const checked = { ...answer, body };
  await checkContract({ method, path, ...checked });
  return checked;
}

/**
 * Reads a fetch `Response` as text and checks it, on the path fetch sent (`response.url`: fetch
 * normalizes `..` and escapes). A test that wants the bytes passes `response.clone()`.
 */
export async function checkFetched(method: string, response: Response): Promise<CheckedAnswer> {
  const url = new URL(response.url);
  return checkAnswer(method, `${url.pathname}${url.search}`, {
    status: response.status,
    headers: response.headers,
    text: await response.text(),
  });
}

/** Reads a node:http answer (`http.request`'s `res`) to its end and checks it. */
export async function checkIncoming(method: string, path: string, res: IncomingMessage): Promise<CheckedAnswer> {
  let text = '';
  res.setEncoding('utf8');
  for await (const chunk of res) text += chunk;
  return checkAnswer(method, path, { status: res.statusCode ?? 0, headers: headersOf(res.headers), text });
}

function headersOf(incoming: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming)) {
    for (const one of [value ?? []].flat()) headers.append(name, one);
  }
  return headers;
}

/** The status line and header lines of an HTTP/1.1 response head (without the blank line). */
export function parseResponseHead(head: string): { status: number; headers: Headers } {
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = new Headers();
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  return { status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0), headers };
}

/**
 * The final response in what a raw client read off a socket, one character per byte (`latin1`): any
 * 1xx before it skipped, a chunked body decoded, the body's UTF-8 read; undefined when nothing
 * parsable came back.
 */
export function parseRawResponse(raw: string): { status: number; headers: Headers; text: string } | undefined {
  let rest = raw;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const { status, headers } = parseResponseHead(rest.slice(0, end));
    rest = rest.slice(end + 4);
    if (status === 0) return undefined;
    if (status >= 200) return { status, headers, text: Buffer.from(bodyOf(rest, headers), 'latin1').toString('utf8') };
  }
}

function bodyOf(rest: string, headers: Headers): string {
  if (!/chunked/i.test(headers.get('transfer-encoding') ?? ''))
    return rest.slice(0, Number(headers.get('content-length') ?? rest.length));
  let text = '';
  for (let at = 0; ;) {
    const lineEnd = rest.indexOf('\r\n', at);
    const size = lineEnd < 0 ? 0 : parseInt(rest.slice(at, lineEnd), 16);
    if (!size) return text;
    text += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
}
