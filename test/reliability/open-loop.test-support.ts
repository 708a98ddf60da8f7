import { checkAnswer } from '../support/checked-answer.ts';

export interface OpenLoopAnswer {
  start: number;
  ms: number;
  status: number;
  retryAfter: string | null;
  code?: string;
  error?: string;
  /** What the answer is checked against the OpenAPI document with, after the load (`checkOpenLoopAnswers`). */
  received?: { path: string; headers: Headers; bytes: Buffer };
}

/** Bodies of 64 KiB and more by length: a load's thousands of identical 400 KB pages are kept once. */
const largeBodies = new Map<number, Buffer[]>();
function keepOnce(bytes: Buffer): Buffer {
  if (bytes.length < 65536) return bytes;
  const sameLength = largeBodies.get(bytes.length) ?? [];
  largeBodies.set(bytes.length, sameLength);
  const kept = sameLength.find((other) => other.equals(bytes));
  if (!kept) sameLength.push(bytes);
  return kept ?? bytes;
}

/**
 * A lean request: a 200 body is read but not parsed, so the generator stays cheaper than the server.
 * The answer is kept (status, headers, bytes) to be checked against the OpenAPI document after the
 * load: parsing and validating a 400 KB page per answer inside it would slow the generator down.
 */
export async function hit(url: string, timeoutMs: number): Promise<OpenLoopAnswer> {
  const start = Date.now();
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    const bytes = keepOnce(Buffer.from(await response.arrayBuffer()));
    const code =
      response.status === 200 ? undefined : (JSON.parse(bytes.toString()) as { error?: { code?: string } }).error?.code;
    const { pathname, search } = new URL(response.url);
    const received = { path: `${pathname}${search}`, headers: response.headers, bytes };
    return {
      start,
      ms: Date.now() - start,
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      code,
      received,
    };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    return { start, ms: Date.now() - start, status: 0, retryAfter: null, error: cause?.code ?? (error as Error).name };
  }
}

/** Checks every answer `hit` received against the OpenAPI document (a violation throws `ContractViolation`). */
export async function checkOpenLoopAnswers(answers: OpenLoopAnswer[]): Promise<void> {
  for (const { status, received } of answers) {
    if (received)
      await checkAnswer('GET', received.path, { status, headers: received.headers, text: received.bytes.toString() });
  }
}

/**
 * An open-loop load: requests start at a fixed rate whatever the answers, as real users arrive. Beyond
 * capacity a server that queues everything answers ever later; one that sheds keeps latency bounded.
 * Every answer is checked against the OpenAPI document once the load is over.
 */
export interface OpenLoopResult {
  answers: OpenLoopAnswer[];
  /** Requests not started because `maxInFlight` were already waiting (the generator's own bound). */
  skipped: number;
}

export async function runOpenLoop(options: {
  url: string;
  path: string;
  ratePerSecond: number;
  seconds: number;
  maxInFlight?: number;
  timeoutMs?: number;
}): Promise<OpenLoopResult> {
  const answers: OpenLoopResult['answers'] = [];
  const pending = new Set<Promise<void>>();
  const tickMs = 20;
  const perTick = (options.ratePerSecond * tickMs) / 1000;
  const started = Date.now();
  let due = 0;
  let sent = 0;
  let skipped = 0;
  while (Date.now() - started < options.seconds * 1000) {
    due = ((Date.now() - started) / tickMs) * perTick;
    while (sent < due) {
      sent += 1;
      if (pending.size >= (options.maxInFlight ?? 2000)) {
        skipped += 1;
        continue;
      }
      const request = hit(`${options.url}${options.path}`, options.timeoutMs ?? 30_000).then((answer) => {
        answers.push(answer);
        pending.delete(request);
      });
      pending.add(request);
    }
    await new Promise((resolve) => setTimeout(resolve, tickMs));
  }
  await Promise.all(pending);
  await checkOpenLoopAnswers(answers);
  return { answers, skipped };
}
