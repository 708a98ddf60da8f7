import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { historyAfterChange, subscribedAt } from './webhook.ts';
import type { WebhookEndpointRow } from './webhooks.table.ts';

const at = (minute: number) => `2026-11-24T10:${String(minute).padStart(2, '0')}:00.000Z`;
const ms = (minute: number) => Date.parse(at(minute));

function endpoint(fields: Partial<WebhookEndpointRow> = {}): WebhookEndpointRow {
  return {
    id: 1,
    url: 'https://example.com/hook',
    events: '["product.*"]',
    description: null,
    status: 'enabled',
    secret: 'whsec_x',
    previous_secret: null,
    previous_secret_until: null,
    disabled_at: null,
    history: '[]',
    created_at: at(0),
    updated_at: at(0),
    ...fields,
  };
}

/** Applies a change (status and/or events) at `minute`, as the service and the 410 path do. */
function changed(
  row: WebhookEndpointRow,
  change: { status?: 'enabled' | 'disabled'; events?: string[] },
  minute: number,
) {
  const after = {
    status: change.status ?? row.status,
    events: change.events ? JSON.stringify(change.events) : row.events,
  };
  const history = historyAfterChange(row, after, at(minute));
  return { ...row, ...after, ...(history !== undefined && { history }) };
}

describe('webhook fan-out: the subscription in force when an event committed', () => {
  it('gives an event the types subscribed when it committed, not the ones of the fan-out', () => {
    const now = changed(endpoint(), { events: ['order.*'] }, 10);
    const receives = subscribedAt(now);
    assert.equal(receives('product.created', ms(5)), true, 'committed while subscribed to product.*');
    assert.equal(receives('order.paid', ms(5)), false, 'order.* came later');
    assert.equal(receives('order.paid', ms(15)), true);
    assert.equal(receives('product.created', ms(15)), false);
  });

  it('gives nothing committed while the endpoint was disabled, though it is enabled again', () => {
    const now = changed(changed(endpoint(), { status: 'disabled' }, 10), { status: 'enabled' }, 20);
    const receives = subscribedAt(now);
    assert.equal(receives('product.created', ms(5)), true);
    assert.equal(receives('product.created', ms(15)), false);
    assert.equal(receives('product.created', ms(25)), true);
  });

  it('gives an endpoint disabled now what committed before it was disabled, and nothing before it existed', () => {
    const receives = subscribedAt(changed(endpoint({ created_at: at(2) }), { status: 'disabled' }, 10));
    assert.equal(receives('product.created', ms(1)), false);
    assert.equal(receives('product.created', ms(5)), true);
    assert.equal(receives('product.created', ms(12)), false);
  });

  it('keeps no history for a change of neither status nor events', () => {
    assert.equal(historyAfterChange(endpoint(), { status: 'enabled', events: '["product.*"]' }, at(3)), undefined);
  });
});
