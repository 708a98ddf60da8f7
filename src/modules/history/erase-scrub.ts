/** The value an erased user's name and e-mail read in stored copies (DECISIONS §19). */
export const ERASED = '[erased]';

/**
 * `value` with the erased user's personal fields replaced, however deep: in every object that is this
 * user (`id` equal to theirs, with a `name` or `email`), `name` and `email` read `[erased]` and `age` null;
 * and any string equal to one of `texts` (their e-mail) reads `[erased]`. Nothing else changes.
 */
export function scrubbedUserValue(value: unknown, userId: number, texts: readonly string[]): unknown {
  if (typeof value === 'string') return texts.includes(value) ? ERASED : value;
  if (Array.isArray(value)) return value.map((item) => scrubbedUserValue(item, userId, texts));
  if (value === null || typeof value !== 'object') return value;
  const object = value as Record<string, unknown>;
  const isThem = Number(object.id) === userId && ('name' in object || 'email' in object);
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(object)) {
    if (isThem && (key === 'name' || key === 'email')) out[key] = field === null ? null : ERASED;
    else if (isThem && key === 'age') out[key] = null;
    else out[key] = scrubbedUserValue(field, userId, texts);
  }
  return out;
}
