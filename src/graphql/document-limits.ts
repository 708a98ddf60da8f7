import {
  GraphQLError,
  Kind,
  type ASTNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import { MAX_TOKENS } from './document-parser.ts';

/**
 * Protection rules run as GraphQL validation rules, so a rejected document never reaches a resolver
 * (and an operation that passed runs compiled from its third run on, without being validated again).
 * The cost limit needs the variables, so it lives in cost.ts and runs just before execution.
 */
export interface DocumentLimits {
  maxDepth: number;
  maxAliases: number;
  maxRootFields: number;
}

/**
 * Most fields an operation may select once its fragments are expanded. Without fragments a document
 * cannot select more fields than it has tokens, so this is the parser's token cap: fragments may
 * reuse a selection, never make a document do more than a flat one of the largest accepted size.
 * (22 fragments each spreading the one below twice select 2^22 fields from 861 bytes.)
 */
export const MAX_EXPANDED_FIELDS = MAX_TOKENS;

export function guardError(
  message: string,
  node: ASTNode | undefined,
  guard: string,
  limit: number,
  actual: number,
): GraphQLError {
  return new GraphQLError(message, {
    ...(node ? { nodes: [node] } : {}),
    extensions: { code: 'GRAPHQL_VALIDATION_FAILED', guard, limit, actual },
  });
}

type FragmentLookup = (name: string) => FragmentDefinitionNode | null | undefined;

/** What a selection set adds up to with every fragment expanded. */
interface Shape {
  /** The deepest field path (introspection fields left out: introspection is switched as a whole). */
  depth: number;
  /** Fields at the set's own level. */
  topFields: number;
  /** Fields at every level. */
  fields: number;
}

const NOTHING: Shape = { depth: 0, topFields: 0, fields: 0 };

/** Sums saturate: a fan-out of fragments must give a large number, never Infinity or a rounded one. */
const add = (a: number, b: number) => Math.min(Number.MAX_SAFE_INTEGER, a + b);

/**
 * The shape of a selection set as if every fragment were expanded, in time linear in the document:
 * each fragment's shape is computed once and reused at every spread, so a fragment spread twice by
 * the one above it (and so on, 30 times over) costs 30 steps, not 2^30. A fragment cycle (an error
 * of graphql's own rules, which run in the same pass) counts as nothing.
 */
export function shapeMeasurer(fragment: FragmentLookup): (set: SelectionSetNode) => Shape {
  const known = new Map<string, Shape>();
  const visiting = new Set<string>();

  function fragmentShape(name: string): Shape {
    const cached = known.get(name);
    if (cached) return cached;
    const definition = fragment(name);
    if (!definition || visiting.has(name)) return NOTHING;
    visiting.add(name);
    const shape = measure(definition.selectionSet);
    visiting.delete(name);
    known.set(name, shape);
    return shape;
  }

  function measure(set: SelectionSetNode): Shape {
    let depth = 0;
    let topFields = 0;
    let fields = 0;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        const below = selection.selectionSet ? measure(selection.selectionSet) : NOTHING;
        if (!selection.name.value.startsWith('__')) depth = Math.max(depth, 1 + below.depth);
        topFields = add(topFields, 1);
        fields = add(fields, add(1, below.fields));
      } else {
        const inner =
          selection.kind === Kind.INLINE_FRAGMENT
            ? measure(selection.selectionSet)
            : fragmentShape(selection.name.value);
        depth = Math.max(depth, inner.depth);
        topFields = add(topFields, inner.topFields);
        fields = add(fields, inner.fields);
      }
    }
    return { depth, topFields, fields };
  }

  return measure;
}

/** Depth, root fields and expanded size of each operation, measured once per operation. */
export function operationShapeRule(limits: DocumentLimits): ValidationRule {
  return (context: ValidationContext) => {
    const measure = shapeMeasurer((name) => context.getFragment(name));
    return {
      OperationDefinition(operation: OperationDefinitionNode) {
        const { depth, topFields, fields } = measure(operation.selectionSet);
        if (fields > MAX_EXPANDED_FIELDS) {
          context.reportError(
            guardError(
              `The operation selects ${fields} fields once its fragments are expanded; at most ${MAX_EXPANDED_FIELDS} are allowed`,
              operation,
              'fields',
              MAX_EXPANDED_FIELDS,
              fields,
            ),
          );
        }
        if (depth > limits.maxDepth) {
          context.reportError(
            guardError(
              `Query depth ${depth} exceeds the maximum depth of ${limits.maxDepth}`,
              operation,
              'depth',
              limits.maxDepth,
              depth,
            ),
          );
        }
        if (topFields > limits.maxRootFields) {
          context.reportError(
            guardError(
              `The operation selects ${topFields} root fields; at most ${limits.maxRootFields} are allowed`,
              operation,
              'rootFields',
              limits.maxRootFields,
              topFields,
            ),
          );
        }
      },
    };
  };
}

export function aliasLimitRule(maxAliases: number): ValidationRule {
  return (context: ValidationContext) => {
    let aliases = 0;
    return {
      Field(field) {
        if (field.alias) aliases += 1;
      },
      Document: {
        leave(document) {
          if (aliases > maxAliases) {
            context.reportError(
              guardError(
                `The document uses ${aliases} aliases; at most ${maxAliases} are allowed`,
                document.definitions[0],
                'aliases',
                maxAliases,
                aliases,
              ),
            );
          }
        },
      },
    };
  };
}

export function documentLimitRules(limits: DocumentLimits): ValidationRule[] {
  return [operationShapeRule(limits), aliasLimitRule(limits.maxAliases)];
}
