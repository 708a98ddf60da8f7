import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ifMatchPrecondition } from '../../core/http/caching.ts';
import { EmptyBody, Id } from '../../core/http/schemas.ts';
import { paginationOf } from '../../core/pagination.ts';
import type { Precondition } from '../../core/precondition.ts';
import type { WebhookEndpoint } from './webhook.ts';
import { toDeliveryView, toWebhookView } from './webhooks.presenter.ts';
import {
  CreatedWebhookView,
  CreateWebhookInput,
  DeliveryList,
  DeliveryView,
  ListDeliveriesQuery,
  ListWebhooksQuery,
  QueuedView,
  ReplayInput,
  RotatedSecretView,
  UpdateWebhookInput,
  WebhookList,
  WebhookView,
} from './webhooks.schemas.ts';
import type { WebhooksService } from './webhooks.service.ts';

const tags = ['webhooks'];
const admin = { access: 'admin' } as const;
const EndpointParams = Type.Object({ webhookId: Id });
const DeliveryParams = Type.Object({ webhookId: Id, deliveryId: Id });

const ifMatchOf = (request: FastifyRequest, reply: FastifyReply): Precondition<WebhookEndpoint> | undefined =>
  ifMatchPrecondition(request, reply, WebhookView, (endpoint: WebhookEndpoint) =>
    toWebhookView(endpoint, request.apiPrefix),
  );

/** REST adapter for webhook endpoints (admin only): thin handlers over the webhooks service. */
export const webhooksRoutes: FastifyPluginAsyncTypebox<{ webhooks: WebhooksService }> = async (app, { webhooks }) => {
  app.post(
    '/webhooks',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Register a webhook endpoint (admin); the answer holds its secret, shown only here',
        body: CreateWebhookInput,
        response: { 201: CreatedWebhookView },
      },
    },
    async (request, reply) => {
      const created = await webhooks.createEndpoint(request.principal, request.body);
      const view = { ...toWebhookView(created, request.apiPrefix), secret: created.secret };
      return reply.code(201).header('location', view._links.self.href).send(view);
    },
  );

  app.get(
    '/webhooks',
    {
      config: admin,
      schema: {
        tags,
        summary: 'List webhook endpoints (admin)',
        querystring: ListWebhooksQuery,
        response: { 200: WebhookList },
      },
    },
    async (request) => {
      const page = await webhooks.listEndpoints(request.principal, request.query);
      return { data: page.items.map((item) => toWebhookView(item, request.apiPrefix)), pagination: paginationOf(page) };
    },
  );

  app.get(
    '/webhooks/:webhookId',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Read a webhook endpoint (admin)',
        params: EndpointParams,
        response: { 200: WebhookView },
      },
    },
    async (request) =>
      toWebhookView(await webhooks.getEndpoint(request.principal, request.params.webhookId), request.apiPrefix),
  );

  app.patch(
    '/webhooks/:webhookId',
    {
      config: { ...admin, openapi: { ifMatch: true } },
      schema: {
        tags,
        summary: 'Change a webhook endpoint; `status: enabled` resumes its waiting deliveries (admin)',
        params: EndpointParams,
        body: UpdateWebhookInput,
        response: { 200: WebhookView },
      },
    },
    async (request, reply) => {
      const { webhookId } = request.params;
      const endpoint = await webhooks.updateEndpoint(
        request.principal,
        webhookId,
        request.body,
        ifMatchOf(request, reply),
      );
      return toWebhookView(endpoint, request.apiPrefix);
    },
  );

  app.delete(
    '/webhooks/:webhookId',
    {
      config: { ...admin, openapi: { ifMatch: true } },
      schema: {
        tags,
        summary: 'Delete a webhook endpoint and its delivery log (admin)',
        params: EndpointParams,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await webhooks.deleteEndpoint(request.principal, request.params.webhookId, ifMatchOf(request, reply));
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/webhooks/:webhookId/rotate-secret',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Replace the signing secret; the old one signs too for WEBHOOK_SECRET_OVERLAP_HOURS (admin)',
        params: EndpointParams,
        body: EmptyBody,
        response: { 200: RotatedSecretView },
      },
    },
    async (request) => webhooks.rotateSecret(request.principal, request.params.webhookId),
  );

  app.get(
    '/webhooks/:webhookId/deliveries',
    {
      config: admin,
      schema: {
        tags,
        summary: "An endpoint's deliveries, newest first (admin)",
        params: EndpointParams,
        querystring: ListDeliveriesQuery,
        response: { 200: DeliveryList },
      },
    },
    async (request) => {
      const page = await webhooks.listDeliveries(request.principal, request.params.webhookId, request.query);
      return {
        data: page.items.map((item) => toDeliveryView(item, request.apiPrefix)),
        pagination: paginationOf(page),
      };
    },
  );

  app.post(
    '/webhooks/:webhookId/deliveries/:deliveryId/retry',
    {
      config: {
        ...admin,
        openapi: {
          errors: {
            409: {
              description:
                'Nothing left to send: the delivery kept no copy of its event (only a dead one does), and the event is past its retention',
              code: 'CONFLICT',
              message: 'Delivery 7 cannot be retried: it kept no copy of its event, and the event is no longer kept',
            },
          },
        },
      },
      schema: {
        tags,
        summary: 'Try a delivery again at once, with a fresh retry schedule (admin)',
        params: DeliveryParams,
        body: EmptyBody,
        response: { 202: DeliveryView },
      },
    },
    async (request, reply) => {
      const { webhookId, deliveryId } = request.params;
      const delivery = await webhooks.retryDelivery(request.principal, webhookId, deliveryId);
      // Where to follow it: the endpoint's delivery log.
      const log = `${request.apiPrefix}/webhooks/${webhookId}/deliveries`;
      return reply.code(202).header('location', log).send(toDeliveryView(delivery, request.apiPrefix));
    },
  );

  app.post(
    '/webhooks/:webhookId/replay',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Deliver again every kept event since a time that the endpoint subscribes to (admin)',
        params: EndpointParams,
        body: ReplayInput,
        response: { 202: QueuedView },
      },
    },
    async (request, reply) => {
      const { webhookId } = request.params;
      const queued = await webhooks.replay(request.principal, webhookId, request.body.since);
      const log = `${request.apiPrefix}/webhooks/${webhookId}/deliveries?status=pending`;
      return reply.code(202).header('location', log).send({ queued });
    },
  );
};
