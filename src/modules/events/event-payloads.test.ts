import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type } from 'typebox';
import { modules } from '../index.ts';
import { EVENT_TYPES } from './event.ts';
import { collectEventPayloads, type EventPayloads } from './event-payloads.ts';

const every: EventPayloads = Object.fromEntries(EVENT_TYPES.map((type) => [type, Type.Object({ id: Type.Integer() })]));

describe("the event payload table (each module declares its resource's types)", () => {
  it('has one schema per type of the catalogue, from the module list', () => {
    assert.deepEqual(Object.keys(collectEventPayloads(modules)).sort(), [...EVENT_TYPES].sort());
  });

  it('refuses a type no module declares', () => {
    const rest = { ...every };
    delete (rest as Record<string, unknown>)['order.refunded'];
    assert.throws(() => collectEventPayloads([{ name: 'all', eventPayloads: rest }]), /order\.refunded/);
  });

  it('refuses a type two modules declare', () => {
    const twice = [
      { name: 'all', eventPayloads: every },
      { name: 'avatars', eventPayloads: { 'user.updated': Type.Object({}) } },
    ];
    assert.throws(() => collectEventPayloads(twice), /user\.updated is declared by both all and avatars/);
  });
});
