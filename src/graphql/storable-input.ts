import { GraphQLError, Kind, visit, type ASTNode, type DocumentNode } from 'graphql';
import type { ErrorDetail } from '../core/errors/app-error.ts';
import { inputProblems, isStorableText, UNSTORABLE_TEXT_MESSAGE } from '../core/validation/input-rules.ts';

/**
 * The shared input rules (core/validation/input-rules.ts) for GraphQL, checked before execution:
 * a string argument, written in the document or passed as a variable, must be storable text (no NUL,
 * no unpaired surrogate), and a variable nests at most MAX_INPUT_DEPTH levels (the document's own
 * literals are bounded by the parser's nesting cap). Otherwise nothing runs and the answer is BAD_USER_INPUT naming the argument
 * (`input.name`) or the variable (`$input.name`), as REST answers 422 naming the field.
 */
export function assertStorableInput(
  document: DocumentNode,
  variables: Record<string, unknown> | null | undefined,
): void {
  const details: ErrorDetail[] = [];
  for (const path of literalPaths(document)) details.push({ field: path, message: UNSTORABLE_TEXT_MESSAGE });
  if (variables && typeof variables === 'object') {
    for (const { path, message } of inputProblems(variables)) details.push({ field: `$${path}`, message });
  }
  if (details.length > 0) {
    throw new GraphQLError('Request validation failed', {
      extensions: { code: 'BAD_USER_INPUT', details: details.slice(0, 10) },
    });
  }
}

/**
 * A compiled operation (compiled-operations.ts) hands the same DocumentNode on every run, so a document's
 * literals are walked once, not on every request (graphql's `visit` was a visible share of a one-field
 * query's CPU).
 */
const literalPathsOf = new WeakMap<DocumentNode, readonly string[]>();

function literalPaths(document: DocumentNode): readonly string[] {
  let found = literalPathsOf.get(document);
  if (found === undefined) literalPathsOf.set(document, (found = walkLiterals(document)));
  return found;
}

/** Paths of the string literals in argument values and variable defaults that are not storable. */
function walkLiterals(document: DocumentNode): string[] {
  const found: string[] = [];
  const names: string[] = [];
  const named = (node: ASTNode): string | undefined => {
    if (node.kind === Kind.ARGUMENT || node.kind === Kind.OBJECT_FIELD) return node.name.value;
    if (node.kind === Kind.VARIABLE_DEFINITION) return `$${node.variable.name.value}`;
    return undefined;
  };
  visit(document, {
    enter(node) {
      const name = named(node);
      if (name !== undefined) names.push(name);
      if (node.kind === Kind.STRING && !isStorableText(node.value) && found.length < 10)
        found.push(names.join('.') || 'query');
    },
    leave(node) {
      if (named(node) !== undefined) names.pop();
    },
  });
  return found;
}
