/** Timestamps are ISO 8601 UTC strings with milliseconds everywhere (DECISIONS §2). */
export const now = (): string => new Date().toISOString();
