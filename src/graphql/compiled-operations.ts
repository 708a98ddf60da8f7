import { createRequire } from 'node:module';
import { getOperationAST, getVariableValues, type DocumentNode, type ExecutionResult, type GraphQLError, type GraphQLSchema } from 'graphql';
import type * as Jit from 'graphql-jit';
import type * as JitVariables from 'graphql-jit/dist/variables.js';
import type { DocumentParser } from './document-parser.ts';

// graphql-jit's CommonJS build, the one Mercurius loads (one copy in memory; its ESM build of
// `dist/variables` does not load: extensionless imports).
const require = createRequire(import.meta.url);
const { compileQuery, isCompiledQuery } = require('graphql-jit') as typeof Jit;
const { compileVariableParsing, failToParseVariables } = require('graphql-jit/dist/variables.js') as typeof JitVariables;

type Variables = Record<string, unknown>;

/** An operation that has run before, compiled to JavaScript by graphql-jit (as Mercurius' `jit` does). */
export interface CompiledOperation {
  document: DocumentNode;
  /** The errors of variables that do not fit their declared types (graphql-js' wording), or undefined. */
  variableErrors(variables: Variables): readonly GraphQLError[] | undefined;
  execute(context: object, variables: Variables): Promise<ExecutionResult> | ExecutionResult;
}

export interface CompiledOperations {
  /** The compiled operation of a text and operation name that has run successfully twice, if any. */
  get(text: string, operationName: string | undefined): CompiledOperation | undefined;
  /** Counts a run of a text whose operation executed (it passed parsing, validation and every guard). */
  executed(text: string, operationName: string | undefined): void;
  clear(): void;
}

/** Mercurius keeps 1,024 documents; the compiled operations are at most as many. */
const MAX_OPERATIONS = 1024;
/** The root value Mercurius passes: the schema's root fields resolve through their field resolvers. */
const ROOT = Object.freeze({});

/**
 * Operations run without Mercurius once they have run through it twice (its `jit: 1`: compiled from the
 * second run on). What Mercurius does around a compiled query on every request, and this skips: its hook
 * runners (a promise each), the parse-cache lookup, and graphql-js' execution context built only to check
 * the variables (`buildExecutionContext`, 2.2% of SQLite W4's busy CPU samples in the 04:12 UTC profile,
 * load 0.7; bench/RESULTS.md, session 8), which graphql-jit's compiled
 * variable parser checks here instead, before the pre-execution checks, in the same order; variables
 * it refuses are described by graphql-js (`getVariableValues`, as `buildExecutionContext` did).
 *
 * An operation is taken only after Mercurius executed it, so its text parsed and passed validation
 * (Mercurius' rules and ours); a text that fails either never gets here. The route runs the same
 * pre-execution checks as Mercurius' hook, with the same context fields.
 */
export function createCompiledOperations(schemaOf: () => GraphQLSchema, parser: DocumentParser): CompiledOperations {
  // By text, then operation name ('' for none): a compiled operation, the number of runs so far, or
  // null for one graphql-jit cannot compile (Mercurius then runs it, as it would).
  const runs = new Map<string, Map<string, CompiledOperation | number | null>>();
  let entries = 0;

  function compile(text: string, operationName: string | undefined): CompiledOperation | null {
    const schema = schemaOf();
    const document = parser.parse(text);
    const compiled = compileQuery(schema, document, operationName);
    if (!isCompiledQuery(compiled)) return null;
    const operation = getOperationAST(document, operationName);
    if (!operation) return null;
    const parseVariables = compileVariableParsing(schema, operation.variableDefinitions ?? []);
    return {
      document,
      variableErrors(variables) {
        // graphql-jit's compiled check for the common case; its messages differ from graphql-js' in places
        // ("Expected type Int; ..."), so a failure is described by graphql-js, as Mercurius described it.
        if (!failToParseVariables(parseVariables(variables))) return undefined;
        return getVariableValues(schema, operation.variableDefinitions ?? [], variables, { maxErrors: 50 }).errors;
      },
      execute: (context, variables) => compiled.query(ROOT, context, variables),
    };
  }

  return {
    get(text, operationName) {
      const entry = runs.get(text)?.get(operationName ?? '');
      return typeof entry === 'object' && entry !== null ? entry : undefined;
    },
    executed(text, operationName) {
      let byName = runs.get(text);
      const entry = byName?.get(operationName ?? '');
      if (typeof entry === 'object') return; // compiled, or not compilable
      if (entry === undefined) {
        if (entries >= MAX_OPERATIONS) {
          runs.clear();
          entries = 0;
          byName = undefined;
        }
        if (byName === undefined) runs.set(text, (byName = new Map()));
        byName.set(operationName ?? '', 1);
        entries += 1;
        return;
      }
      byName!.set(operationName ?? '', compile(text, operationName));
    },
    clear() {
      runs.clear();
      entries = 0;
    },
  };
}
