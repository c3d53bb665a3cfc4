import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../services.ts';
import { principalOf } from '../http/request-context.ts';
import { bearerSecurity, deletedSchema, errorResponses } from '../http/schemas.ts';
import type { NewApiToken } from '../identity/api-token-service.ts';

const permissions = { type: 'array', items: { type: 'string', enum: ['read', 'write'] }, minItems: 1, maxItems: 2 } as const;
const tokenProperties = {
  id: { type: 'string' },
  name: { type: 'string' },
  permissions,
  dataset: { type: ['string', 'null'] },
  created_at: { type: 'string', format: 'date-time' },
} as const;
const projectParams = { type: 'object', properties: { project: { type: 'string', minLength: 1 } }, required: ['project'] } as const;

export const tokenRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  app.get<{ Params: { project: string } }>(
    '/tokens/:project',
    {
      schema: {
        tags: ['api tokens'],
        summary: "List a project's API tokens, without their values (project admin session)",
        security: bearerSecurity,
        params: projectParams,
        response: {
          200: {
            type: 'array',
            items: {
              type: 'object',
              properties: { ...tokenProperties, last_used_at: { type: ['string', 'null'], format: 'date-time' } },
              required: ['id', 'name', 'permissions', 'dataset', 'last_used_at', 'created_at'],
            },
          },
          ...errorResponses(401, 403, 404),
        },
      },
    },
    async (request) => services.apiTokens.list(principalOf(request), request.params.project),
  );

  app.post<{ Params: { project: string }; Body: NewApiToken }>(
    '/tokens/:project',
    {
      schema: {
        tags: ['api tokens'],
        summary: 'Create an API token; its value is returned once (project admin session)',
        security: bearerSecurity,
        params: projectParams,
        body: {
          type: 'object',
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 100 },
            permissions,
            dataset: { type: ['string', 'null'], minLength: 1, maxLength: 64 },
          },
          required: ['name'],
          additionalProperties: false,
        },
        response: {
          201: {
            type: 'object',
            properties: { ...tokenProperties, token: { type: 'string' } },
            required: ['id', 'name', 'permissions', 'dataset', 'created_at', 'token'],
          },
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await services.apiTokens.create(principalOf(request), request.params.project, request.body)),
  );

  app.delete<{ Params: { project: string; id: string } }>(
    '/tokens/:project/:id',
    {
      schema: {
        tags: ['api tokens'],
        summary: 'Revoke an API token (project admin session)',
        security: bearerSecurity,
        params: {
          type: 'object',
          properties: { project: { type: 'string', minLength: 1 }, id: { type: 'string', minLength: 1 } },
          required: ['project', 'id'],
        },
        response: { 200: deletedSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => services.apiTokens.delete(principalOf(request), request.params.project, request.params.id),
  );
};
