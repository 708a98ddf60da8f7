import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { isStorableText } from '../../src/core/validation/input-rules.ts';

/**
 * Values generated from a published JSON Schema (an OpenAPI parameter's or a body field's): some it
 * calls valid, and for each constraint it states (enum, pattern, range, multipleOf, minLength) some it
 * calls invalid by that constraint. The contract test sends them (test/contract/document-constraints.test.ts).
 */

export interface ValueSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  format?: string;
  items?: ValueSchema;
  anyOf?: ValueSchema[];
}

/** The keywords a value is held to here: what the document says a value must be, beyond its type. */
const CONSTRAINTS = ['enum', 'const', 'pattern', 'minimum', 'maximum', 'multipleOf', 'minLength'] as const;
export type Constraint = (typeof CONSTRAINTS)[number];

export const constraintsOf = (schema: ValueSchema): Constraint[] => CONSTRAINTS.filter((key) => key in schema);

const typesOf = (schema: ValueSchema): string[] =>
  schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];

/** Whether a value of this schema is a number (else text, for the keywords this file reads). */
export const isNumeric = (schema: ValueSchema) =>
  typesOf(schema).some((type) => type === 'number' || type === 'integer');

/**
 * A pattern without its lookaheads, which fast-check cannot generate from: strings are generated from the
 * rest and kept when the whole pattern matches them.
 */
export function withoutLookaheads(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    if (pattern.startsWith('(?!', i) || pattern.startsWith('(?=', i)) {
      let depth = 0;
      let inClass = false;
      for (; i < pattern.length; i++) {
        const char = pattern[i];
        if (char === '\\') i++;
        else if (inClass) inClass = char !== ']';
        else if (char === '[') inClass = true;
        else if (char === '(') depth++;
        else if (char === ')' && --depth === 0) break;
      }
      continue;
    }
    out += pattern[i];
    if (pattern[i] === '\\') out += pattern[++i] ?? '';
  }
  return out;
}

const lengthOf = (text: string) => [...text].length;

type Format = RegExp | ((text: string) => boolean) | { validate: RegExp | ((text: string) => boolean) };
const formats = addFormatsModule as unknown as { get(name: string): Format | undefined };

/** Whether a text has a format as ajv-formats (the validators of the documents' readers too) reads it. */
function hasFormat(name: string | undefined, text: string): boolean {
  if (name === undefined) return true;
  const format = formats.get(name);
  const check = format && typeof format === 'object' && 'validate' in format ? format.validate : format;
  if (check instanceof RegExp) return check.test(text);
  return typeof check === 'function' ? check(text) : true;
}

/** Text a JSON Schema validator would call valid: enum, const, pattern and lengths; storable text (a rule of every field). */
function validText(schema: ValueSchema): fc.Arbitrary<string> {
  if (schema.enum) return fc.constantFrom(...schema.enum.map(String));
  if (schema.const !== undefined) return fc.constant(String(schema.const));
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? Infinity;
  const base = schema.pattern
    ? fc.stringMatching(new RegExp(withoutLookaheads(schema.pattern), 'u'))
    : fc.string({ minLength: min, maxLength: Math.max(min, Math.min(max, 12)) });
  const whole = schema.pattern ? new RegExp(schema.pattern, 'u') : undefined;
  return base.filter(
    (text) =>
      isStorableText(text) &&
      lengthOf(text) >= min &&
      lengthOf(text) <= max &&
      (!whole || whole.test(text)) &&
      hasFormat(schema.format, text),
  );
}

const decimalsOf = (step: number) => (String(step).split('.')[1] ?? '').length;
/** `k` steps as the double a JSON or query text of that decimal becomes (`1999` cents: 19.99). */
const stepped = (k: number, step: number) => Number((k * step).toFixed(decimalsOf(step)));

function validNumber(schema: ValueSchema): fc.Arbitrary<number> {
  const integer = typesOf(schema).includes('integer') && !typesOf(schema).includes('number');
  const lo = schema.minimum ?? -1e6;
  const hi = schema.maximum ?? 1e6;
  if (schema.multipleOf) {
    const step = schema.multipleOf;
    const steps = fc.double({ min: Math.ceil(lo / step), max: Math.floor(hi / step), noNaN: true }).map(Math.trunc);
    const small = fc.integer({ min: 0, max: 10_000 }).filter((k) => k * step >= lo && k * step <= hi);
    return fc.oneof(steps, small).map((k) => stepped(k, step));
  }
  if (integer) return fc.integer({ min: Math.max(lo, -(2 ** 31)), max: Math.min(hi, 2 ** 31 - 1) });
  return fc.double({ min: lo, max: hi, noNaN: true, noDefaultInfinity: true });
}

/**
 * The valid values a random draw rarely hits: a number's bounds, and for a step the multiples whose
 * quotient by it is a float a hair off an integer (0.07 / 0.01 = 7.000000000000001; 19.99).
 */
export function edgeValues(schema: ValueSchema): unknown[] {
  if (!isNumeric(schema) || schema.enum) return [];
  const bounds = [schema.minimum, schema.maximum].filter((bound): bound is number => bound !== undefined);
  const step = schema.multipleOf;
  const multiples = step === undefined ? [] : [7, 29, 57, 115, 1999].map((k) => stepped(k, step));
  return [...bounds, ...multiples].filter(
    (value) => value >= (schema.minimum ?? -Infinity) && value <= (schema.maximum ?? Infinity),
  );
}

/** Values the schema calls valid, as JSON values (a query string sends their text). */
export function validValues(schema: ValueSchema): fc.Arbitrary<unknown> {
  if (typesOf(schema).includes('array') && schema.items) {
    return fc.array(validValues(schema.items), { minLength: 1, maxLength: 3 });
  }
  return isNumeric(schema) && !schema.enum ? validNumber(schema) : validText(schema);
}

/** Values the schema calls invalid by one constraint: an arbitrary of them per constraint it states. */
export function invalidValues(schema: ValueSchema): Partial<Record<Constraint, fc.Arbitrary<unknown>>> {
  if (typesOf(schema).includes('array') && schema.items) {
    const inner = invalidValues(schema.items);
    return Object.fromEntries(Object.entries(inner).map(([key, arb]) => [key, arb.map((value) => [value])]));
  }
  const invalid: Partial<Record<Constraint, fc.Arbitrary<unknown>>> = {};
  const step = schema.multipleOf ?? (typesOf(schema).includes('integer') ? 1 : 0.5);
  if (schema.minimum !== undefined && isNumeric(schema)) {
    invalid.minimum = fc.constantFrom(schema.minimum - step, schema.minimum - 1000 * step);
  }
  if (schema.maximum !== undefined && isNumeric(schema)) {
    const over = schema.maximum + (schema.multipleOf ?? 1);
    invalid.maximum = fc.constantFrom(over, schema.maximum * 1e12 || 1e20);
  }
  if (schema.multipleOf) {
    const m = schema.multipleOf;
    invalid.multipleOf = validNumber(schema)
      .filter((value) => value + m < (schema.maximum ?? Infinity))
      .chain((value) => fc.constantFrom(value + m * 0.3, value + m / 2))
      .filter((value) => Math.abs(value / m - Math.round(value / m)) > 0.1);
  }
  if (isNumeric(schema) && !schema.enum) return invalid;
  const text = fc.string({ minLength: 1, maxLength: 12 }).filter(isStorableText);
  const valid = validText(schema);
  if (schema.enum || schema.const !== undefined) {
    const allowed = (schema.enum ?? [schema.const]).map(String);
    invalid[schema.enum ? 'enum' : 'const'] = fc
      .oneof(
        text,
        valid.map((value) => `${value}x`),
        fc.constant(''),
      )
      .filter((value) => !allowed.includes(value));
  }
  if (schema.pattern) {
    const whole = new RegExp(schema.pattern, 'u');
    const nearMisses = valid.chain((value) => fc.constantFrom(`${value},zz`, `zz${value}`, `${value}${value}`));
    const spaces = fc.constantFrom(' ', '\t', ',', 'zz', '-');
    invalid.pattern = fc.oneof(spaces, text, nearMisses).filter((value) => !whole.test(value));
  }
  if (schema.minLength) invalid.minLength = fc.constant('x'.repeat(schema.minLength - 1));
  return invalid;
}
