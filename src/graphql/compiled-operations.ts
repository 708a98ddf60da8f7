import {
  getOperationAST,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLError,
  type GraphQLSchema,
} from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import type { DocumentParser } from './document-parser.ts';
import { variableCheck } from './variable-check.ts';

type Variables = Record<string, unknown>;

/** An operation that has run before, compiled to JavaScript by graphql-jit's public `compileQuery`. */
export interface CompiledOperation {
  document: DocumentNode;
  /** The errors of variables that do not fit their declared types (graphql-js' wording), or undefined. */
  variableErrors(variables: Variables): readonly GraphQLError[] | undefined;
  execute(context: object, variables: Variables): Promise<ExecutionResult> | ExecutionResult;
}

export interface CompiledOperations {
  /** The compiled operation of a text and operation name that has executed twice, if any. */
  get(text: string, operationName: string | undefined): CompiledOperation | undefined;
  /** Counts a run of a text whose operation executed (it passed parsing, validation and every guard). */
  executed(text: string, operationName: string | undefined): void;
}

/**
 * What the texts held here may keep alive, estimated by the parser (`DocumentParser.weight`: a compiled
 * operation keeps its document), before the oldest texts go. An application's own operations weigh a
 * few MB at most; a flood of distinct documents cannot grow the heap past this.
 */
const COMPILED_BYTES = 64 * 1024 * 1024;
/** The root value: the schema's root fields resolve through their field resolvers. */
const ROOT = Object.freeze({});

/** By operation name ('' for none): a compiled operation, the runs so far, or null for one graphql-jit cannot compile. */
interface TextEntry {
  byName: Map<string, CompiledOperation | number | null>;
  weight: number;
}

/**
 * Operations run without Mercurius once they have executed through it twice (compiled from the second
 * execution on, as Mercurius' own `jit: 1` would; Mercurius runs with its caches off, graphql.plugin.ts).
 * What Mercurius does around a compiled query on every request, and this skips: its hook runners (a
 * promise each), and graphql-js' execution context built only to check the variables (bench/RESULTS.md,
 * session 8, change 48). The variables are checked here as graphql-js checks them (variable-check.ts,
 * with its wording), before the pre-execution checks, in Mercurius' order; the compiled query then
 * coerces them itself.
 *
 * An operation is taken only after Mercurius executed it, so its text parsed and passed validation
 * (Mercurius' rules and ours); a text that fails either never gets here. The route runs the same
 * pre-execution checks as Mercurius' hook, with the same context fields.
 */
export function createCompiledOperations(
  schemaOf: () => GraphQLSchema,
  parser: DocumentParser,
  budget = COMPILED_BYTES,
): CompiledOperations {
  // In insertion order: the oldest text goes first when the budget is spent.
  const texts = new Map<string, TextEntry>();
  let held = 0;

  function compile(text: string, operationName: string | undefined): CompiledOperation | null {
    const schema = schemaOf();
    const document = parser.parse(text);
    const compiled = compileQuery(schema, document, operationName);
    if (!isCompiledQuery(compiled)) return null;
    return {
      document,
      variableErrors: variableCheck(schema, getOperationAST(document, operationName)?.variableDefinitions ?? []),
      execute: (context, variables) => compiled.query(ROOT, context, variables),
    };
  }

  function makeRoom(weight: number): void {
    for (const [oldest, entry] of texts) {
      if (held + weight <= budget) return;
      texts.delete(oldest);
      held -= entry.weight;
    }
  }

  return {
    get(text, operationName) {
      const entry = texts.get(text)?.byName.get(operationName ?? '');
      return typeof entry === 'object' && entry !== null ? entry : undefined;
    },
    executed(text, operationName) {
      const name = operationName ?? '';
      const known = texts.get(text);
      const runs = known?.byName.get(name);
      if (typeof runs === 'object') return; // compiled, or not compilable
      if (known && runs !== undefined) {
        known.byName.set(name, compile(text, operationName));
        return;
      }
      if (known) {
        known.byName.set(name, 1);
        return;
      }
      const weight = parser.weight(text);
      if (weight > budget) return;
      makeRoom(weight);
      texts.set(text, { byName: new Map([[name, 1]]), weight });
      held += weight;
    },
  };
}
