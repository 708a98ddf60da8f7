import { GraphQLList, GraphQLNonNull, GraphQLString, type GraphQLResolveInfo } from 'graphql';
import { selectedArguments, subfieldNodes } from './requested-fields.ts';

type ListInfo = Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments' | 'variableValues'>;

const FIELD_NAMES = new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(GraphQLString)));

/**
 * The searched fields a list's items are asked to highlight (`highlights(fields:)` under every alias and
 * fragment, merged), as REST's `highlight` comma list, or undefined when none is: the list reads them all
 * in one statement for its page (core/search/highlights.ts), never one per item. `under` names the field
 * between the list and its items (a connection's `nodes`).
 */
export function highlightsRequested(info: ListInfo, under?: string): string | undefined {
  const items = under === undefined ? info : { ...info, fieldNodes: subfieldNodes(info, under) };
  const fields = new Set(selectedArguments(items, 'highlights', 'fields', FIELD_NAMES).flat() as string[]);
  return fields.size === 0 ? undefined : [...fields].join(',');
}

/** A search highlight as GraphQL serves it: the field and its marked, HTML-escaped text. */
export interface SearchHighlight {
  field: string;
  text: string;
}

/**
 * `highlights(fields:)` of an item: its highlights of those fields, in the order asked, or null when the
 * item was not read by a searched list (no `search`, or read by id or through a relation).
 */
export function highlightsOf(
  item: { highlights?: Readonly<Record<string, string>> | undefined },
  fields: readonly string[],
): SearchHighlight[] | null {
  const marked = item.highlights;
  if (!marked) return null;
  return fields.map((field) => ({ field, text: marked[field] ?? '' }));
}

/** `SearchHighlight`, shared by every searched type: part of the root shell (graphql/schema.ts), declared once. */
export const SEARCH_HIGHLIGHT_TYPE_DEFS = /* GraphQL */ `
  """
  A searched field's text, HTML-escaped, each matched term in <mark>…</mark> (safe to insert as HTML).
  """
  type SearchHighlight {
    field: String!
    text: String!
  }
`;
