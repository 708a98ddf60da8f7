import {
  coerceInputValue,
  getVariableValues,
  isInputType,
  isNonNullType,
  typeFromAST,
  type GraphQLError,
  type GraphQLInputType,
  type GraphQLSchema,
  type VariableDefinitionNode,
} from 'graphql';

export type VariableCheck = (variables: Record<string, unknown>) => readonly GraphQLError[] | undefined;

/**
 * The check of an operation's variables against their declared types, built once per compiled operation:
 * the errors graphql-js' `getVariableValues` gives (the check graphql-js' `execute` runs first, and its
 * wording), or undefined when the variables fit.
 *
 * Why not `getVariableValues` on every request: it builds the coerced values, a closure and the types
 * from the AST each time, the largest cost left on a cached one-variable read (bench/RESULTS.md,
 * "Changes", 48). graphql-jit compiles such a check, but does not export it (its
 * `dist/variables` is private; zalando-incubator/graphql-jit#228 would move it onto graphql-js').
 * So the types are read once, each value goes through graphql-js' own `coerceInputValue`, and the rules
 * around it (a missing variable, a null) are graphql-js' `coerceVariableValues` ones; at the first
 * doubt `getVariableValues` describes the refusal. variable-check.test.ts holds it to `getVariableValues`.
 */
export function variableCheck(schema: GraphQLSchema, definitions: readonly VariableDefinitionNode[]): VariableCheck {
  if (definitions.length === 0) return () => undefined;
  const describe: VariableCheck = (variables) =>
    getVariableValues(schema, definitions, variables, { maxErrors: 50 }).errors;
  const checks: { name: string; type: GraphQLInputType; nonNull: boolean; defaulted: boolean }[] = [];
  for (const definition of definitions) {
    const type = typeFromAST(schema, definition.type);
    if (!isInputType(type)) return describe; // refused by validation already; graphql-js words it
    checks.push({
      name: definition.variable.name.value,
      type,
      nonNull: isNonNullType(type),
      defaulted: definition.defaultValue !== undefined,
    });
  }
  let fits = true;
  const refuse = () => {
    fits = false;
  };
  return (variables) => {
    fits = true;
    for (const { name, type, nonNull, defaulted } of checks) {
      if (!Object.hasOwn(variables, name)) {
        if (nonNull && !defaulted) return describe(variables);
        continue;
      }
      const value = variables[name];
      if (value === null) {
        if (nonNull) return describe(variables);
        continue;
      }
      coerceInputValue(value, type, refuse);
      if (!fits) return describe(variables);
    }
    return undefined;
  };
}
