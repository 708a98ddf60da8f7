import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { TSchema } from 'typebox';
import { AppError, type ErrorDetail } from '../errors/app-error.ts';
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from './input-rules.ts';

// ajv-formats ships CommonJS; its default export is the plugin function.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/**
 * `multipleOfPrecision`: `multipleOf: 0.01` (whole cents) holds for 0.07 or 19.99, whose quotient by
 * 0.01 is a float a hair off an integer (7.000000000000001); without it ajv refuses them. 5 decimals:
 * over every price up to MAX_PRICE (1e8) the quotient of a two-decimal value is within 1e-6 of its
 * integer, and 10.123 or 1.005 are 0.3 and 0.5 off. The service still checks cents exactly
 * (products/product.ts), so a value within 1e-5 of a cent but not on it (19.99000001) is refused there.
 * docs/REST.md ("Constraints") says why and what was measured.
 */
const BASE: Options = {
  allErrors: true,
  strict: false,
  useDefaults: true,
  removeAdditional: false,
  multipleOfPrecision: 5,
};

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

const SUBSCHEMA = new Set([
  'items',
  'additionalItems',
  'additionalProperties',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
]);
const SUBSCHEMA_LISTS = new Set(['anyOf', 'allOf', 'oneOf', 'prefixItems']);
const SUBSCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions']);

/** A copy of a schema whose every string schema carries the storable-text keyword (values such as enums untouched). */
export function withStorableText(schema: unknown): unknown {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  const copy: Record<string, unknown> = { ...(schema as Record<string, unknown>) };
  for (const [key, value] of Object.entries(copy)) {
    if (SUBSCHEMA.has(key)) copy[key] = withStorableText(value);
    else if (SUBSCHEMA_LISTS.has(key) && Array.isArray(value)) copy[key] = value.map(withStorableText);
    else if (SUBSCHEMA_MAPS.has(key) && value && typeof value === 'object') {
      copy[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, withStorableText(sub)]));
    }
  }
  const type = copy.type;
  if (type === 'string' || (Array.isArray(type) && type.includes('string'))) copy[STORABLE_TEXT] = true;
  return copy;
}

/**
 * ajv-formats' `email` (its full mode, which the instances above use) as a JSON Schema `pattern`: the
 * format alone lets a reader (or a generator) assume RFC 5321, which admits `d1@example` or a quoted
 * local part, and ajv refuses both. Beside `format: 'email'`, the pattern states the very rule ajv holds;
 * a pattern has no flags, so the format's case-insensitive `a-z` is written `A-Za-z`.
 */
export const EMAIL_PATTERN = emailPatternOf(
  (addFormatsModule as unknown as { get(name: string): RegExp | { validate: RegExp } }).get('email'),
);

function emailPatternOf(format: RegExp | { validate: RegExp }): string {
  const regex = format instanceof RegExp ? format : format.validate;
  if (regex.flags !== 'i') throw new Error(`ajv-formats' email format changed its flags (${regex.flags})`);
  return regex.source.replaceAll('a-z', 'A-Za-z');
}

/** The pattern that marks a text field as "not blank" (at least one non-space character). */
export const NOT_BLANK = '\\S';

/** The pattern of an http(s) URL: its scheme, in any case (RFC 3986 §3.1), then a host without credentials (`user:pw@`). */
export const HTTP_URL = '^[Hh][Tt][Tt][Pp][Ss]?://[^/?#@\\s]+(?:[/?#]|$)';

/** What a date-time must look like, with an example to copy: one message for bodies, query strings and filters. */
export const DATE_TIME_MESSAGE = 'must be an ISO 8601 date-time with a time zone, e.g. 2026-11-21T10:00:00Z';

/** Messages that name the fix, for the patterns a reader cannot be expected to decode. */
const PATTERN_MESSAGES: ReadonlyMap<string, string> = new Map([
  [NOT_BLANK, 'must not be blank'],
  [EMAIL_PATTERN, 'must be an e-mail address, e.g. ada@example.com'],
  [HTTP_URL, 'must be an http(s) URL'],
  ['^https?://', 'must be an http(s) URL'],
]);

/** The steps a reader knows by another name. */
const MULTIPLE_OF_MESSAGES: ReadonlyMap<number, string> = new Map([
  [0.01, 'must have at most two decimals (whole cents), e.g. 19.99'],
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
    } else if (error.keyword === 'multipleOf' && MULTIPLE_OF_MESSAGES.has(Number(error.params.multipleOf))) {
      details.push({ field: join(''), message: MULTIPLE_OF_MESSAGES.get(Number(error.params.multipleOf))! });
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
  // Storable text on every string, as the request validator has it: a batch's operation or an import's row
  // reaches the service without passing a route's body schema.
  const validate = bodyAjv.compile(withStorableText(schema) as object);
  return (value: unknown): T => {
    if (!validate(value)) throw AppError.validation(toErrorDetails(validate.errors));
    return value as T;
  };
}
