import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { TSchema } from 'typebox';
import { AppError, type ErrorDetail } from '../errors/app-error.ts';
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from './input-rules.ts';

// ajv-formats ships CommonJS; its default export is the plugin function.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const BASE: Options = { allErrors: true, strict: false, useDefaults: true, removeAdditional: false };

/** Bodies are JSON: no coercion, so `"age": "42"` is a type error rather than silently a number. */
export const bodyAjv = addFormats(new Ajv({ ...BASE, coerceTypes: false }));
/** Query strings, path parameters and headers arrive as text and are coerced to their declared types. */
export const textAjv = addFormats(new Ajv({ ...BASE, coerceTypes: 'array' }));

/**
 * The keyword that holds a string to the storable-text rule (input-rules.ts). The request validator
 * puts it on every string of a route's body and query schemas, so no route can forget it.
 */
export const STORABLE_TEXT = 'x-storable-text';
for (const ajv of [bodyAjv, textAjv]) {
  ajv.addKeyword({
    keyword: STORABLE_TEXT,
    type: 'string',
    schemaType: 'boolean',
    errors: false,
    validate: (_: boolean, data: string) => isStorableText(data),
  });
}

/** The pattern that marks a text field as "not blank" (at least one non-space character). */
export const NOT_BLANK = '\\S';

/** Turns ajv errors into the envelope's `details`, naming each field by its path. */
export function toErrorDetails(errors: ErrorObject[] | null | undefined, prefix = ''): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const error of errors ?? []) {
    const path = error.instancePath.replace(/^\//, '').replaceAll('/', '.');
    const join = (name: string) => [prefix, path, name].filter(Boolean).join('.');
    if (error.keyword === 'required') {
      details.push({ field: join(String(error.params.missingProperty)), message: 'is required' });
    } else if (error.keyword === 'additionalProperties') {
      details.push({ field: join(String(error.params.additionalProperty)), message: 'is not an allowed field' });
    } else if (error.keyword === 'enum') {
      const allowed = (error.params.allowedValues as unknown[]).join(', ');
      details.push({ field: join(''), message: `must be one of: ${allowed}` });
    } else if (error.keyword === STORABLE_TEXT) {
      details.push({ field: join('') || prefix || 'body', message: UNSTORABLE_TEXT_MESSAGE });
    } else if (error.keyword === 'pattern' && error.params.pattern === NOT_BLANK) {
      details.push({ field: join(''), message: 'must not be blank' });
    } else {
      details.push({ field: join('') || prefix || 'body', message: error.message ?? 'is invalid' });
    }
  }
  return dedupe(details);
}

function dedupe(details: ErrorDetail[]): ErrorDetail[] {
  const seen = new Set<string>();
  return details.filter((d) => {
    const key = `${d.field}\u0000${d.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * A checker for domain input, used by services so GraphQL and REST share one set of rules
 * declared once as TypeBox schemas. Throws 422 VALIDATION_ERROR with details.
 */
export function createChecker<T>(schema: TSchema): (value: unknown) => T {
  const validate = bodyAjv.compile(schema);
  return (value: unknown): T => {
    if (!validate(value)) throw AppError.validation(toErrorDetails(validate.errors));
    return value as T;
  };
}
