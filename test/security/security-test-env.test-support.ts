/**
 * Settings every security suite starts its servers with. Load shedding (503 when the event loop
 * lags) is switched off: these suites count requests and time answers, and a busy test machine
 * must not turn a 401 or a 429 into a 503.
 */
export const SECURITY_TEST_ENV: Record<string, string> = { OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0' };
