import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../services.ts';
import { principalOf } from '../http/request-context.ts';
import { bearerSecurity, deletedSchema, errorResponses } from '../http/schemas.ts';
import { WEBHOOK_EVENTS } from '../webhooks/events.ts';
import {
  DELIVERY_LIST_DEFAULT,
  DELIVERY_LIST_MAX,
  MAX_WEBHOOKS_PER_PROJECT,
  WEBHOOK_NAME_MAX,
  type WebhookInput,
} from '../webhooks/webhook-service.ts';
import { MAX_WEBHOOK_URL_LENGTH } from '../webhooks/url-policy.ts';

const webhookProperties = {
  name: { type: 'string', minLength: 1, maxLength: WEBHOOK_NAME_MAX },
  url: { type: 'string', minLength: 1, maxLength: MAX_WEBHOOK_URL_LENGTH },
  events: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: WEBHOOK_EVENTS.length * 2 },
  dataset: { type: 'string', minLength: 1, maxLength: 64 },
  active: { type: 'boolean' },
  secret: { type: 'string', minLength: 16, maxLength: 256 },
} as const;

const webhookSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    url: { type: 'string' },
    events: { type: 'array', items: { type: 'string' } },
    dataset: { type: 'string' },
    active: { type: 'boolean' },
    secret: { type: 'string', description: 'Only in the create response and after rotateSecret=true' },
    created_at: { type: 'string' },
    updated_at: { type: 'string' },
  },
  required: ['id', 'name', 'url', 'events', 'dataset', 'active', 'created_at', 'updated_at'],
} as const;

const deliverySchema = {
  type: 'object',
  properties: {
    id: { type: 'string', description: 'The delivery id, sent as X-Service-Delivery and kept across retries' },
    event: { type: 'string' },
    payload: { type: 'object', additionalProperties: true },
    status_code: { type: 'integer', nullable: true },
    response_body: { type: 'string', nullable: true },
    attempts: { type: 'integer' },
    success: { type: 'boolean' },
    status: { type: 'string', enum: ['pending', 'succeeded', 'failed'] },
    error: { type: 'string', nullable: true },
    created_at: { type: 'string' },
  },
  required: ['id', 'event', 'payload', 'status_code', 'response_body', 'attempts', 'success', 'created_at'],
} as const;

const projectParams = { type: 'object', properties: { project: { type: 'string', minLength: 1 } }, required: ['project'] } as const;
const webhookParams = {
  type: 'object',
  properties: { project: { type: 'string', minLength: 1 }, id: { type: 'string', minLength: 1 } },
  required: ['project', 'id'],
} as const;

export const webhookRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  app.get(
    '/webhooks/events',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'The event names webhooks can subscribe to',
        security: bearerSecurity,
        response: { 200: { type: 'array', items: { type: 'string' } }, ...errorResponses(401, 403) },
      },
    },
    async (request) => services.webhooks.events(principalOf(request)),
  );

  app.get<{ Params: { project: string } }>(
    '/webhooks/:project',
    {
      schema: {
        tags: ['webhooks'],
        summary: "A project's webhooks, without secrets (project admin session)",
        security: bearerSecurity,
        params: projectParams,
        response: { 200: { type: 'array', items: webhookSchema }, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => services.webhooks.list(principalOf(request), request.params.project),
  );

  app.post<{ Params: { project: string }; Body: Required<Pick<WebhookInput, 'name' | 'url' | 'events' | 'dataset'>> & WebhookInput }>(
    '/webhooks/:project',
    {
      schema: {
        tags: ['webhooks'],
        summary: `Create a webhook (at most ${MAX_WEBHOOKS_PER_PROJECT} per project); its secret is returned this once`,
        description: 'The URL must be http(s), at most 2048 characters, without credentials, and resolve to public addresses only.',
        security: bearerSecurity,
        params: projectParams,
        body: { type: 'object', properties: webhookProperties, required: ['name', 'url', 'events', 'dataset'], additionalProperties: false },
        response: { 201: webhookSchema, ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) => reply.code(201).send(await services.webhooks.create(principalOf(request), request.params.project, request.body)),
  );

  app.put<{ Params: { project: string; id: string }; Querystring: { rotateSecret?: boolean }; Body: WebhookInput | undefined }>(
    '/webhooks/:project/:id',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Update a webhook; ?rotateSecret=true issues a new secret, returned this once',
        security: bearerSecurity,
        params: webhookParams,
        querystring: { type: 'object', properties: { rotateSecret: { type: 'boolean' } } },
        body: { type: 'object', properties: webhookProperties, additionalProperties: false },
        response: { 200: webhookSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      services.webhooks.update(principalOf(request), request.params.project, request.params.id, request.body ?? {}, request.query.rotateSecret === true),
  );

  app.delete<{ Params: { project: string; id: string } }>(
    '/webhooks/:project/:id',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Delete a webhook and its delivery logs',
        security: bearerSecurity,
        params: webhookParams,
        response: { 200: deletedSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => services.webhooks.delete(principalOf(request), request.params.project, request.params.id),
  );

  app.get<{ Params: { project: string; id: string }; Querystring: { limit: number } }>(
    '/webhooks/:project/:id/deliveries',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Recent deliveries of a webhook, newest first (the last 50 are kept)',
        security: bearerSecurity,
        params: webhookParams,
        querystring: {
          type: 'object',
          properties: { limit: { type: 'integer', minimum: 1, maximum: DELIVERY_LIST_MAX, default: DELIVERY_LIST_DEFAULT } },
        },
        response: { 200: { type: 'array', items: deliverySchema }, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => services.webhooks.deliveries(principalOf(request), request.params.project, request.params.id, request.query.limit),
  );
};
