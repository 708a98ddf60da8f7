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

/** The pattern of an http(s) URL: its scheme, in any case (RFC 3986 §3.1). */
export const HTTP_URL = '^[Hh][Tt][Tt][Pp][Ss]?://';

/** What a date-time must look like, with an example to copy: one message for bodies, query strings and filters. */
export const DATE_TIME_MESSAGE = 'must be an ISO 8601 date-time with a time zone, e.g. 2026-11-21T10:00:00Z';

/** Messages that name the fix, for the patterns a reader cannot be expected to decode. */
const PATTERN_MESSAGES: ReadonlyMap<string, string> = new Map([
  [NOT_BLANK, 'must not be blank'],
  [HTTP_URL, 'must be an http(s) URL'],
  ['^https?://', 'must be an http(s) URL'],
]);

const FORMAT_MESSAGES: Readonly<Record<string, string>> = {
  'date-time': DATE_TIME_MESSAGE,
  email: 'must be an e-mail address, e.g. ada@example.com',
  uri: 'must be an absolute URL, e.g. https://example.com/image.png',
};

/** JSON Schema types as a sentence says them: `["integer", "null"]` → "an integer or null". */
const TYPE_WORDS: Readonly<Record<string, string>> = {
  integer: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

function typeMessage(type: unknown): string {
  const types = (Array.isArray(type) ? type : String(type).split(',')).map(String);
  return `must be ${types.map((name) => TYPE_WORDS[name] ?? name).join(' or ')}`;
}

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
    } else if (error.keyword === 'pattern' && PATTERN_MESSAGES.has(String(error.params.pattern))) {
      details.push({ field: join(''), message: PATTERN_MESSAGES.get(String(error.params.pattern))! });
    } else if (error.keyword === 'format' && Object.hasOwn(FORMAT_MESSAGES, String(error.params.format))) {
      details.push({ field: join(''), message: FORMAT_MESSAGES[String(error.params.format)]! });
    } else if (error.keyword === 'type') {
      details.push({ field: join('') || prefix || 'body', message: typeMessage(error.params.type) });
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
