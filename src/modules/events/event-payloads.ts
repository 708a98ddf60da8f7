import { Type, type TSchema } from 'typebox';
import { Named } from '../../core/http/schemas.ts';
import { EVENT_TYPES, type EventType } from './event.ts';
import { EventId, EventImportId, EventTimestamp } from './events.schemas.ts';

/**
 * The schema of `data` for event types, as a module declares them in its descriptor (`eventPayloads`):
 * the TypeBox schema its REST routes answer 200 with (the admin's v2 view, `_links` included) or the
 * small `*.deleted` shape. Each module declares its own resource's types, beside the presenter its
 * recorder builds `data` with: modules already import this module (for the recorder), so the events
 * module imports none of them and dependencies run one way.
 */
export type EventPayloads = { readonly [K in EventType]?: TSchema };

/** A declaration with exactly the types of a recorder's map (`satisfies EventPayloadsOf<UserEvents>`). */
export type EventPayloadsOf<M> = { readonly [K in keyof M]: TSchema };

/** The whole table, one schema per type of the catalogue. */
export type EventPayloadTable = Readonly<Record<EventType, TSchema>>;

/**
 * The modules' declarations as one table: every type of `EVENT_TYPES` declared by exactly one module
 * (a type emitted by two, like `user.updated` by users and avatars, is declared by its resource's).
 */
export function collectEventPayloads(
  modules: readonly { name: string; eventPayloads?: EventPayloads | undefined }[],
): EventPayloadTable {
  const table: Partial<Record<EventType, TSchema>> = {};
  const owner: Partial<Record<EventType, string>> = {};
  for (const module of modules) {
    for (const [type, schema] of Object.entries(module.eventPayloads ?? {}) as [EventType, TSchema][]) {
      if (owner[type]) throw new Error(`Event type ${type} is declared by both ${owner[type]} and ${module.name}`);
      owner[type] = module.name;
      table[type] = schema;
    }
  }
  const missing = EVENT_TYPES.filter((type) => !table[type]);
  if (missing.length > 0) throw new Error(`No module declares the payload of ${missing.join(', ')}`);
  return table as EventPayloadTable;
}

/** `order.paid` → `OrderPaid`. */
export const pascalCaseOf = (type: EventType) =>
  type
    .split('.')
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('');

/** One type's event: `{id, type, timestamp, importId?, data}` with that type's own `data`, named `<Type>Event`. */
export function EventOfType(type: EventType, data: TSchema) {
  return Named(
    `${pascalCaseOf(type)}Event`,
    Type.Object({
      id: EventId,
      type: Type.Literal(type),
      timestamp: EventTimestamp,
      importId: EventImportId,
      data,
    }),
  );
}
