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

/**
 * Protection rules run as GraphQL validation rules, so a rejected document never reaches a resolver
 * (and the verdict is cached with the parsed document). The cost limit needs the variables, so it
 * lives in cost.ts and runs just before execution.
 */
export interface GuardLimits {
  maxDepth: number;
  maxAliases: number;
  maxRootFields: number;
}

export function guardError(message: string, node: ASTNode | undefined, guard: string, limit: number, actual: number): GraphQLError {
  return new GraphQLError(message, {
    ...(node ? { nodes: [node] } : {}),
    extensions: { code: 'GRAPHQL_VALIDATION_FAILED', guard, limit, actual },
  });
}

type FragmentLookup = (name: string) => FragmentDefinitionNode | null | undefined;

/** Introspection (`__schema`, `__type`) is switched on or off as a whole, so it is not measured here. */
const isIntrospection = (name: string) => name.startsWith('__');

/** Depth of the deepest field path; fragments are expanded (cycles are another rule's error). */
function depthOf(set: SelectionSetNode, fragment: FragmentLookup, visiting: Set<string>): number {
  let deepest = 0;
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) {
      if (isIntrospection(selection.name.value)) continue;
      const below = selection.selectionSet ? depthOf(selection.selectionSet, fragment, visiting) : 0;
      deepest = Math.max(deepest, 1 + below);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      deepest = Math.max(deepest, depthOf(selection.selectionSet, fragment, visiting));
    } else {
      const name = selection.name.value;
      const definition = fragment(name);
      if (!definition || visiting.has(name)) continue;
      visiting.add(name);
      deepest = Math.max(deepest, depthOf(definition.selectionSet, fragment, visiting));
      visiting.delete(name);
    }
  }
  return deepest;
}

/** Root fields of an operation, counting those reached through fragments at the root. */
function rootFieldCount(set: SelectionSetNode, fragment: FragmentLookup, visiting: Set<string>): number {
  let count = 0;
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) count += 1;
    else if (selection.kind === Kind.INLINE_FRAGMENT) count += rootFieldCount(selection.selectionSet, fragment, visiting);
    else {
      const name = selection.name.value;
      const definition = fragment(name);
      if (!definition || visiting.has(name)) continue;
      visiting.add(name);
      count += rootFieldCount(definition.selectionSet, fragment, visiting);
      visiting.delete(name);
    }
  }
  return count;
}

export function depthLimitRule(maxDepth: number): ValidationRule {
  return (context: ValidationContext) => ({
    OperationDefinition(operation: OperationDefinitionNode) {
      const depth = depthOf(operation.selectionSet, (name) => context.getFragment(name), new Set());
      if (depth > maxDepth) {
        context.reportError(guardError(`Query depth ${depth} exceeds the maximum depth of ${maxDepth}`, operation, 'depth', maxDepth, depth));
      }
    },
  });
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
              guardError(`The document uses ${aliases} aliases; at most ${maxAliases} are allowed`, document.definitions[0], 'aliases', maxAliases, aliases),
            );
          }
        },
      },
    };
  };
}

export function rootFieldLimitRule(maxRootFields: number): ValidationRule {
  return (context: ValidationContext) => ({
    OperationDefinition(operation: OperationDefinitionNode) {
      const count = rootFieldCount(operation.selectionSet, (name) => context.getFragment(name), new Set());
      if (count > maxRootFields) {
        context.reportError(
          guardError(`The operation selects ${count} root fields; at most ${maxRootFields} are allowed`, operation, 'rootFields', maxRootFields, count),
        );
      }
    },
  });
}

export function guardRules(limits: GuardLimits): ValidationRule[] {
  return [depthLimitRule(limits.maxDepth), aliasLimitRule(limits.maxAliases), rootFieldLimitRule(limits.maxRootFields)];
}
