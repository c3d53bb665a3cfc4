import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../services.ts';
import { principalOf } from '../http/request-context.ts';
import { bearerSecurity, deletedSchema, errorResponses } from '../http/schemas.ts';

const entrySchema = {
  type: 'object',
  properties: { id: { type: 'string' }, projectId: { type: 'string' }, origin: { type: 'string' }, allowCredentials: { type: 'boolean' }, createdAt: { type: 'string' } },
  required: ['id', 'projectId', 'origin', 'allowCredentials', 'createdAt'],
} as const;
const projectParams = { type: 'object', properties: { project: { type: 'string', minLength: 1 } }, required: ['project'] } as const;

/** A project's CORS origins, as Sanity manages them (project admins, signed in). */
export const corsOriginRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  app.get<{ Params: { project: string } }>(
    '/projects/:project/cors',
    {
      schema: {
        tags: ['projects'],
        summary: 'Origins browsers may call the API from for this project',
        security: bearerSecurity,
        params: projectParams,
        response: { 200: { type: 'array', items: entrySchema }, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => services.cors.list(principalOf(request), request.params.project),
  );

  app.post<{ Params: { project: string }; Body: { origin: string; allowCredentials?: boolean } }>(
    '/projects/:project/cors',
    {
      schema: {
        tags: ['projects'],
        summary: 'Allow an origin (https://studio.example.com); allowCredentials lets its pages sign in and use cookies',
        security: bearerSecurity,
        params: projectParams,
        body: {
          type: 'object',
          properties: { origin: { type: 'string', minLength: 1, maxLength: 2048 }, allowCredentials: { type: 'boolean' } },
          required: ['origin'],
          additionalProperties: false,
        },
        response: { 201: entrySchema, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => reply.code(201).send(await services.cors.add(principalOf(request), request.params.project, request.body)),
  );

  app.delete<{ Params: { project: string; id: string } }>(
    '/projects/:project/cors/:id',
    {
      schema: {
        tags: ['projects'],
        summary: 'Remove an allowed origin',
        security: bearerSecurity,
        params: { type: 'object', properties: { project: { type: 'string', minLength: 1 }, id: { type: 'string', minLength: 1 } }, required: ['project', 'id'] },
        response: { 200: deletedSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => services.cors.remove(principalOf(request), request.params.project, request.params.id),
  );
};
