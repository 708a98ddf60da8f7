import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildSchema, getOperationAST, getVariableValues, parse } from 'graphql';
import { variableCheck } from './variable-check.ts';

const schema = buildSchema(`
  enum Role { ADMIN USER }
  input Filter { name: String!, limit: Int = 5, roles: [Role!], inner: Filter }
  type Query { f(a: ID, b: Int, c: Float, d: Boolean, e: String, g: [Int!], h: Filter, r: Role): String }
`);

const OPERATION = `query Q($id: ID!, $n: Int, $x: Float!, $yes: Boolean, $s: String = "d", $list: [Int!]!, $filter: Filter, $role: Role) {
  f(a: $id, b: $n, c: $x, d: $yes, e: $s, g: $list, h: $filter, r: $role)
}`;
const definitions = getOperationAST(parse(OPERATION))!.variableDefinitions!;

function deeplyNested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i += 1) value = { inner: value };
  return value;
}

const FITTING = { id: '7', x: 1.5, list: [1] };
const CASES: Record<string, unknown>[] = [
  FITTING,
  {
    ...FITTING,
    id: 7,
    n: null,
    yes: true,
    s: null,
    role: 'ADMIN',
    filter: { name: 'a', roles: ['USER'], inner: { name: 'b' } },
  },
  { ...FITTING, list: 3 }, // a single value for a list
  { ...FITTING, extra: { anything: [] } }, // undeclared variables are ignored
  {},
  { ...FITTING, id: null },
  { ...FITTING, id: 7.5 },
  { ...FITTING, id: {} },
  { ...FITTING, id: true },
  { ...FITTING, n: 2 ** 40 },
  { ...FITTING, n: -(2 ** 53) },
  { ...FITTING, n: '10' },
  { ...FITTING, n: 1.5 },
  { ...FITTING, x: 'NaN' },
  { ...FITTING, x: Number.POSITIVE_INFINITY },
  { ...FITTING, yes: 'true' },
  { ...FITTING, yes: 0 },
  { ...FITTING, s: 5 },
  { ...FITTING, list: [1, null] },
  { ...FITTING, list: [[1]] },
  { ...FITTING, role: 'GUEST' },
  { ...FITTING, role: 0 },
  { ...FITTING, filter: {} },
  { ...FITTING, filter: { name: 'a', unknown: 1 } },
  { ...FITTING, filter: { name: 'a', limit: null, roles: null } },
  { ...FITTING, filter: { name: 'a', inner: { name: 5 } } },
  { ...FITTING, filter: 'a' },
  { ...FITTING, filter: deeplyNested(2000) },
  { ...FITTING, id: deeplyNested(2000) },
  { id: {}, n: 'x', x: 'y', yes: 'z', list: ['w'] }, // several at once
];

describe('the variable check of a compiled operation', () => {
  it("refuses exactly what graphql-js' getVariableValues refuses, with its messages", () => {
    const check = variableCheck(schema, definitions);
    let fitting = 0;
    for (const variables of CASES) {
      const expected = getVariableValues(schema, definitions, variables, { maxErrors: 50 }).errors?.map(
        (e) => e.message,
      );
      assert.deepEqual(
        check(variables)?.map((e) => e.message),
        expected,
        JSON.stringify(variables).slice(0, 200),
      );
      if (expected === undefined) fitting += 1;
    }
    assert.equal(fitting, 5, 'the first four cases and the nulls of nullable input fields fit');
  });

  it('checks nothing for an operation without variables', () => {
    assert.equal(variableCheck(schema, [])({ anything: {} }), undefined);
  });
});
