import type { WebhookDelivery, WebhookEndpoint } from './webhook.ts';

export function toWebhookView(endpoint: WebhookEndpoint, prefix: string) {
  const self = `${prefix}/webhooks/${endpoint.id}`;
  return {
    id: endpoint.id,
    url: endpoint.url,
    events: endpoint.events,
    description: endpoint.description,
    status: endpoint.status,
    createdAt: endpoint.createdAt,
    updatedAt: endpoint.updatedAt,
    _links: {
      self: { href: self },
      deliveries: { href: `${self}/deliveries` },
      rotateSecret: { href: `${self}/rotate-secret`, method: 'POST' },
      replay: { href: `${self}/replay`, method: 'POST' },
    },
  };
}

export function toDeliveryView(delivery: WebhookDelivery, prefix: string) {
  return {
    id: delivery.id,
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    status: delivery.status,
    attempts: delivery.attempts,
    lastAttemptAt: delivery.lastAttemptAt,
    lastResponseStatus: delivery.lastResponseStatus,
    nextAttemptAt: delivery.nextAttemptAt,
    _links: {
      retry: {
        href: `${prefix}/webhooks/${delivery.endpointId}/deliveries/${delivery.id}/retry`,
        method: 'POST',
      },
    },
  };
}
