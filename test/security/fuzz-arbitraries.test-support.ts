import fc from 'fast-check';

/** Numbers that break naive code: beyond 2^53, beyond double range, negative zero, denormals. */
export const HUGE_NUMBER_TEXTS = [
  '1e400',
  '-1e400',
  '123456789012345678901234567890',
  '9007199254740993',
  '-0',
  '1e-400',
  '0.1e1',
  '-9223372036854775809',
  '1.7976931348623157e308',
];

export const hugeNumberText = fc.constantFrom(...HUGE_NUMBER_TEXTS);

/** Field names the API knows, so generated objects reach validation and services, plus noise. */
const FIELD_NAMES = [
  'name',
  'email',
  'age',
  'password',
  'role',
  'status',
  'title',
  'content',
  'text',
  'price',
  'stock',
  'category',
  'image',
  'description',
  'items',
  'productId',
  'quantity',
  'currency',
  'customerId',
  'type',
  'from',
  'to',
  'id',
  'authorId',
  '__proto__',
  'constructor',
  'prototype',
];
export const fieldName = fc.oneof(fc.constantFrom(...FIELD_NAMES), fc.string({ maxLength: 12 }));

export const scalarJson = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }).map((s) => JSON.stringify(s)),
  fc.string({ maxLength: 3000 }).map((s) => JSON.stringify(s)),
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
  hugeNumberText,
  fc.constantFrom('true', 'false', 'null', '""', '"user@example.com"', '"admin"', '"suspended"', '[]', '{}'),
);

/** JSON text of an object with API-ish fields and hostile values (nested objects and arrays too). */
export const objectJson: fc.Arbitrary<string> = fc.letrec<{ value: string; object: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalarJson,
    tie('object'),
    fc.array(tie('value'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
  ),
  object: fc
    .array(fc.tuple(fieldName, tie('value')), { maxLength: 6 })
    .map((pairs) => `{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
})).object;

/** Nesting far past any parser's comfort, as arrays or objects. */
export const deepJson = fc
  .tuple(fc.integer({ min: 100, max: 20000 }), fc.boolean())
  .map(([depth, arrays]) =>
    arrays ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`,
  );

/** Bytes that are not UTF-8 (lone continuation bytes, overlongs, surrogates), inside JSON-looking text. */
export const invalidUtf8Body = fc
  .tuple(
    fc.uint8Array({ minLength: 1, maxLength: 64 }),
    fc.constantFrom([0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0x80], [0xf8, 0x88, 0x80, 0x80, 0x80]),
  )
  .map(([noise, bad]) =>
    Buffer.concat([
      Buffer.from('{"name":"'),
      Buffer.from(bad),
      Buffer.from(noise),
      Buffer.from('","email":"x@example.com"}'),
    ]),
  );

/** Any body a client could send. */
export const anyBody: fc.Arbitrary<string | Uint8Array> = fc.oneof(
  { arbitrary: objectJson, weight: 6 },
  { arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v) ?? 'null'), weight: 2 },
  { arbitrary: deepJson, weight: 1 },
  { arbitrary: invalidUtf8Body, weight: 1 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 200 }), weight: 1 },
  {
    arbitrary: fc.constantFrom(
      '{"__proto__":{"role":"admin"},"name":"P","email":"p@example.com"}',
      '{"constructor":{"prototype":{"role":"admin"}}}',
      '',
      ' ',
      '{',
      '{"name":"a","name":"b"}',
    ),
    weight: 1,
  },
);

/** A path segment: numbers in odd spellings, percent-encoding junk, traversal, long and unicode text. */
export const pathSegment = fc.oneof(
  fc.constantFrom(
    '0',
    '-1',
    '1e3',
    '0x10',
    '1.0',
    '01',
    '+1',
    ' 1',
    '9'.repeat(40),
    'NaN',
    'Infinity',
    'null',
    '..',
    '.',
    '%',
    '%zz',
    '%ff',
    '%c0%af',
    '%2e%2e',
    '%00',
    '%0a',
    '%u0041',
    'me',
    '1;drop table users',
  ),
  fc.string({ maxLength: 30 }).map(encodeURIComponent),
  fc.string({ unit: 'binary', maxLength: 20 }).map(encodeURIComponent),
  fc.integer({ min: 1, max: 3000 }).map((n) => 'a'.repeat(n)),
  fc.nat().map(String),
);

/** Query string pairs, encoded, sometimes with raw broken percent-encoding. */
export const queryString = fc
  .array(
    fc.tuple(
      fc.oneof(
        fc.constantFrom(
          'page',
          'limit',
          'offset',
          'sort',
          'order',
          'fields',
          'role',
          'status',
          'category',
          'min_price',
          'max_price',
          'in_stock',
          'search',
          'cursor',
          'authorId',
          'version',
          'query',
          'variables',
        ),
        fc.string({ maxLength: 10 }),
      ),
      fc.oneof(
        hugeNumberText,
        fc.string({ maxLength: 50 }),
        fc.string({ unit: 'binary', maxLength: 20 }),
        fc.constantFrom('-1', '0', '1e3', 'name,-name', 'id,password_hash', '__proto__', "' or 1=1 --", 'true', ''),
      ),
    ),
    { maxLength: 8 },
  )
  .chain((pairs) =>
    fc.constantFrom(
      pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'),
      `${pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}&%zz=%e0%a4%a&limit=%ff`,
    ),
  );

/** Header values fetch can send (visible ASCII and spaces). */
export const headerValue = fc
  .string({ unit: 'grapheme-ascii', maxLength: 200 })
  .map((s) => s.replace(/[^\x20-\x7e]/g, '').trim());

export const base64url = fc.string({
  unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'),
  maxLength: 80,
});

export const authorization = fc.oneof(
  headerValue,
  headerValue.map((v) => `Bearer ${v}`),
  fc.tuple(base64url, base64url, base64url).map(([a, b, c]) => `Bearer ${a}.${b}.${c}`),
  fc.constantFrom(
    'Bearer',
    'Bearer ',
    'Basic YWRtaW46YWRtaW4=',
    'bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIiwicm9sZSI6ImFkbWluIn0.',
  ),
);

/** Integers at and past every boundary the databases and JavaScript have, written as JSON or query text. */
export const EXTREME_INTEGER_TEXTS = [
  '2147483647',
  '2147483648',
  '-2147483648',
  '-2147483649',
  '4294967296',
  '9007199254740991',
  '9007199254740993',
  '9223372036854775807',
  '9223372036854775808',
  '99999999999999999999',
  '999999999999999999999999',
  '1e20',
  '1e21',
  '-1e20',
  '1E3',
  '1e-7',
  '0.5',
  '-0',
  '0',
];

/** JSON string literals no database should be handed as is: NUL, unpaired surrogates (escaped, as JSON allows), control characters. */
export const HOSTILE_STRING_JSON = [
  '"\\u0000"',
  '"a\\u0000b"',
  '"\\ud800"',
  '"\\udfff"',
  '"a\\ud83d"',
  '"\\udc00\\ud800"',
  '"\\u0001\\u001f\\u007f"',
  '"\\uffff\\ufffe"',
  '"😀"',
  '"\\u202e"',
  '"__proto__"',
  '"constructor"',
  '" "',
  '""',
];

/** A JSON value, as text, chosen to break naive code: extreme numbers, hostile strings, odd shapes, huge strings. */
export const hostileJson: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...EXTREME_INTEGER_TEXTS, ...HUGE_NUMBER_TEXTS), weight: 4 },
  { arbitrary: fc.constantFrom(...HOSTILE_STRING_JSON), weight: 4 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 30 }).map((s) => JSON.stringify(s)), weight: 2 },
  { arbitrary: fc.integer({ min: 1000, max: 300_000 }).map((n) => JSON.stringify('x'.repeat(n))), weight: 1 },
  {
    arbitrary: fc.constantFrom(
      'null',
      'true',
      'false',
      '[]',
      '{}',
      '[null]',
      '{"__proto__":{"role":"admin"}}',
      '{"constructor":{"prototype":{"admin":true}}}',
      '[[[[[[]]]]]]',
    ),
    weight: 2,
  },
  { arbitrary: fc.double().map((n) => (Number.isFinite(n) ? JSON.stringify(n) : '1e999')), weight: 1 },
);

/** Text for a query parameter or path segment, percent-encoded: the same hostile values as bodies, as a URL carries them. */
export const hostileText: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...EXTREME_INTEGER_TEXTS, ...HUGE_NUMBER_TEXTS).map(encodeURIComponent), weight: 3 },
  {
    arbitrary: fc.constantFrom(
      '%00',
      'a%00',
      '%00%00',
      'a%00b',
      '%ED%A0%80',
      '%C0%80',
      '%FF',
      '%',
      '%zz',
      '+1',
      '%201',
      '0x10',
      '01',
      '1.0',
      'Infinity',
      'NaN',
      '__proto__',
      'constructor',
      'true',
      '',
      '[]',
      '%5B%5D',
    ),
    weight: 4,
  },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 20 }).map(encodeURIComponent), weight: 1 },
  { arbitrary: fc.integer({ min: 100, max: 2000 }).map((n) => 'a'.repeat(n)), weight: 1 },
);
