import type { ValidateFunction } from 'ajv';

/**
 * Compiled functions (request validators, response serializers) built on their first call rather than
 * when Fastify asks for them at start. Fastify asks for every part of every route of the three
 * versions of the API; a process serves a few of them most of the time, and the rest held megabytes
 * of RSS from the start (bench/RESULTS.md, "Changes", 64; under load the gain shrinks as the routes
 * in use are compiled). A schema
 * that does not compile still fails, on the route's first request instead of at start; every route is
 * requested by the tests. The first request pays the compilation: 2-4 ms for most routes, 35-60 ms for
 * the products list (its query schema names every filter operator).
 */
export function onFirstUse<Input, Result>(compile: () => (input: Input) => Result): (input: Input) => Result {
  let compiled: ((input: Input) => Result) | undefined;
  return (input) => (compiled ??= compile())(input);
}

/**
 * An Ajv validator compiled on its first call. Fastify reads `errors` right after a call and passes
 * Ajv's data context to a validator that has `schemaEnv` (so a root value may be coerced): both are
 * kept, the context handed on to the compiled validator.
 */
export function validatorOnFirstUse(compile: () => ValidateFunction): ValidateFunction {
  let compiled: ValidateFunction | undefined;
  const validate = ((data: unknown, context?: Parameters<ValidateFunction>[1]) => {
    compiled ??= compile();
    const valid = compiled(data, context);
    validate.errors = compiled.errors;
    return valid;
  }) as ValidateFunction;
  validate.errors = null;
  // Read by Fastify as "an Ajv validator": the compiled function's own environment is Ajv's business.
  validate.schemaEnv = {} as ValidateFunction['schemaEnv'];
  return validate;
}
