import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../services.ts';
import type { SchemaType } from '../schema/load-schema.ts';
import { principalOf } from '../http/request-context.ts';
import { bearerSecurity, errorResponses } from '../http/schemas.ts';

/** GET /schema/:project, registered only when the server was started with SCHEMA_PATH. */
export const schemaRoutes: FastifyPluginAsync<{ services: Services; schema: SchemaType[] }> = async (app, { services, schema }) => {
  app.get<{ Params: { project: string } }>(
    '/schema/:project',
    {
      schema: {
        tags: ['schema'],
        summary: 'The schema types (from SCHEMA_PATH): document and object types with their fields',
        security: bearerSecurity,
        params: { type: 'object', properties: { project: { type: 'string', minLength: 1 } }, required: ['project'] },
        response: {
          200: {
            type: 'object',
            properties: {
              types: {
                type: 'array',
                items: {
                  type: 'object',
                  additionalProperties: true,
                  properties: {
                    name: { type: 'string' },
                    type: { type: 'string', enum: ['document', 'object'] },
                    title: { type: 'string' },
                    fields: { type: 'array', items: { type: 'object', additionalProperties: true } },
                  },
                },
              },
            },
            required: ['types'],
          },
          ...errorResponses(401, 403, 404),
        },
      },
    },
    async (request) => {
      await services.projects.visible(principalOf(request), request.params.project);
      return { types: schema };
    },
  );
};
