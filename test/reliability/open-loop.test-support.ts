export interface OpenLoopAnswer {
  start: number;
  ms: number;
  status: number;
  retryAfter: string | null;
  code?: string;
  error?: string;
}

/** A lean request: a 200 body is read but not parsed, so the generator stays cheaper than the server. */
export async function hit(url: string, timeoutMs: number): Promise<OpenLoopAnswer> {
  const start = Date.now();
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    let code: string | undefined;
    if (response.status === 200) await response.arrayBuffer();
    else code = ((await response.json()) as { error?: { code?: string } }).error?.code;
    return { start, ms: Date.now() - start, status: response.status, retryAfter: response.headers.get('retry-after'), code };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    return { start, ms: Date.now() - start, status: 0, retryAfter: null, error: cause?.code ?? (error as Error).name };
  }
}

/**
 * An open-loop load: requests start at a fixed rate whatever the answers, as real users arrive. Beyond
 * capacity a server that queues everything answers ever later; one that sheds keeps latency bounded.
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
  return { answers, skipped };
}
