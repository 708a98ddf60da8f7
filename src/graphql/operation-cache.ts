import {
  execute,
  getOperationAST,
  GraphQLError,
  specifiedRules,
  validate,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type ValidationRule,
} from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { activeTracing } from '../core/tracing/tracing.ts';
import { parseDocument, retainedBytes } from './document-parser.ts';
import { variableCheck, type VariableCheck } from './variable-check.ts';

type Variables = Record<string, unknown>;

/** An operation of a valid document, ready to run: its variables' check and its compiled query. */
export interface PreparedOperation {
  document: DocumentNode;
  operation: OperationDefinitionNode;
  /** The errors of variables that do not fit their declared types (graphql-js' wording), or undefined. */
  variableErrors: VariableCheck;
  /**
   * Runs the operation's selection on `root` (for a subscription: one event's payload; graphql-js runs a
   * subscription's payload the same way, as `execute` with the payload as root value).
   */
  execute(root: object, context: object, variables: Variables): Promise<ExecutionResult> | ExecutionResult;
}

/** A text and operation name that cannot run: its parse, validation or operation-selection errors. */
export interface RefusedOperation {
  errors: readonly GraphQLError[];
}

export interface OperationCache {
  /** The text's document, or undefined when it does not parse (the GET route reads its operation type). */
  documentOf(text: string): DocumentNode | undefined;
  /** Parse (our caps), validate (the specified rules and ours), select the operation, compile: once per text and name. */
  prepare(text: string, operationName: string | undefined): PreparedOperation | RefusedOperation;
}

interface TextEntry {
  verdict: DocumentNode | GraphQLError;
  /** Validation's errors, once validated ([] when valid). */
  validationErrors?: readonly GraphQLError[];
  byName: Map<string, PreparedOperation | RefusedOperation>;
  /** What the parsed text keeps alive. */
  base: number;
  /** `base`, plus as much again per compiled operation. */
  weight: number;
}

/**
 * What the texts held here may keep alive (documents, validation errors, compiled operations), estimated
 * from their tokens (`retainedBytes`), before the oldest texts go. An application's own operations weigh
 * a few MB at most; a flood of distinct documents, valid or not, cannot grow the heap past this.
 */
const CACHE_BYTES = 96 * 1024 * 1024;

/** Compiled code and its closures, beside the document: a compiled operation weighs about its document again. */
const COMPILED_WEIGHT = 1;

export interface OperationCacheOptions {
  schema: GraphQLSchema;
  /** Our validation rules, run after graphql-js's specified rules. */
  rules: readonly ValidationRule[];
  budget?: number;
}

function selectOperation(
  document: DocumentNode,
  operationName: string | undefined,
): OperationDefinitionNode | GraphQLError {
  const operation = getOperationAST(document, operationName);
  if (operation) return operation;
  // graphql-js' `execute` words these (buildExecutionContext).
  if (operationName) return new GraphQLError(`Unknown operation named "${operationName}".`);
  const operations = document.definitions.filter((d) => d.kind === 'OperationDefinition').length;
  return new GraphQLError(
    operations === 0
      ? 'Must provide an operation.'
      : 'Must provide operation name if query contains multiple operations.',
  );
}

/**
 * With tracing on (DECISIONS §17), each execution of the operation in a span of its own named and
 * attributed as the semantic conventions say (`query GetPosts`; `graphql.operation.type`,
 * `graphql.operation.name`). Here, on the compiled operation every transport runs (HTTP, WebSocket, SSE,
 * each subscription event), the span is there on a cached execution too: the stock GraphQL
 * instrumentation patches graphql-js' `execute`, which graphql-jit's compiled query never calls. Never
 * the document or the variables: they may hold a client's values.
 */
function traced(operation: OperationDefinitionNode, run: PreparedOperation['execute']): PreparedOperation['execute'] {
  const tracing = activeTracing();
  if (!tracing) return run;
  const name = operation.name?.value;
  const attributes = {
    'graphql.operation.type': operation.operation,
    ...(name ? { 'graphql.operation.name': name } : {}),
  };
  return tracing.wrap(name ? `${operation.operation} ${name}` : operation.operation, attributes, run);
}

/**
 * The one document cache of the GraphQL endpoint (HTTP, WebSocket and SSE alike), one entry per text:
 * the parse verdict (a syntax error is kept too, so a repeated bad text costs one look-up), validation's
 * errors, and per operation name the compiled operation (graphql-jit's public `compileQuery`; graphql-js'
 * `execute` for a document graphql-jit declines). Bounded in bytes, oldest text out first.
 */
export function createOperationCache({ schema, rules, budget = CACHE_BYTES }: OperationCacheOptions): OperationCache {
  const texts = new Map<string, TextEntry>();
  const allRules = [...specifiedRules, ...rules];
  let held = 0;

  function entryOf(text: string): TextEntry {
    let entry = texts.get(text);
    if (entry) return entry;
    const { verdict, tokens } = parseDocument(text);
    const base = retainedBytes(text, tokens);
    entry = { verdict, byName: new Map(), base, weight: base };
    if (entry.weight <= budget) {
      texts.set(text, entry);
      held += entry.weight;
      for (const [oldest, old] of texts) {
        if (held <= budget) break;
        texts.delete(oldest);
        held -= old.weight;
      }
    }
    return entry;
  }

  function compile(
    document: DocumentNode,
    operation: OperationDefinitionNode,
    name: string | undefined,
  ): PreparedOperation {
    const compiled = compileQuery(schema, document, name);
    const run: PreparedOperation['execute'] = isCompiledQuery(compiled)
      ? (root, context, variables) => compiled.query(root, context, variables)
      : (root, context, variables) =>
          execute({
            schema,
            document,
            rootValue: root,
            contextValue: context,
            variableValues: variables,
            operationName: name,
          });
    return {
      document,
      operation,
      variableErrors: variableCheck(schema, operation.variableDefinitions ?? []),
      execute: traced(operation, run),
    };
  }

  return {
    documentOf(text) {
      const { verdict } = entryOf(text);
      return verdict instanceof GraphQLError ? undefined : verdict;
    },
    prepare(text, operationName) {
      const entry = entryOf(text);
      const { verdict } = entry;
      if (verdict instanceof GraphQLError) return { errors: [verdict] };
      const name = operationName ?? '';
      const known = entry.byName.get(name);
      if (known) return known;
      entry.validationErrors ??= validate(schema, verdict, allRules, { maxErrors: 100 });
      let prepared: PreparedOperation | RefusedOperation;
      if (entry.validationErrors.length > 0) prepared = { errors: entry.validationErrors };
      else {
        const operation = selectOperation(verdict, operationName);
        prepared =
          operation instanceof GraphQLError ? { errors: [operation] } : compile(verdict, operation, operationName);
        if ('execute' in prepared && texts.get(text) === entry) {
          held += entry.base * COMPILED_WEIGHT;
          entry.weight += entry.base * COMPILED_WEIGHT;
        }
      }
      entry.byName.set(name, prepared);
      return prepared;
    },
  };
}
