import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../../services.ts';
import { principalOf } from '../../http/request-context.ts';
import { dataProject } from '../../http/data-project.ts';
import { bearerSecurity, errorResponses } from '../../http/schemas.ts';
import { datasetParams, documentParams, documentSchema, languageQuery, projectQuery } from './schemas.ts';

export const documentRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  app.get<{ Params: { dataset: string; documentId: string }; Querystring: { language?: string } }>(
    '/data/doc/:dataset/:documentId',
    {
      schema: {
        tags: ['documents'],
        summary: 'A document by id (drafts have ids starting with drafts.)',
        security: bearerSecurity,
        params: documentParams,
        querystring: { type: 'object', properties: { ...languageQuery, ...projectQuery } },
        response: { 200: documentSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { dataset, documentId } = request.params;
      const project = await dataProject(services, request, dataset);
      return services.documents.get(principalOf(request), project, dataset, documentId, request.query.language);
    },
  );

  app.get<{ Params: { dataset: string } }>(
    '/data/counts/:dataset',
    {
      schema: {
        tags: ['documents'],
        summary: 'Published documents per type',
        security: bearerSecurity,
        params: datasetParams,
        querystring: { type: 'object', properties: projectQuery },
        response: {
          200: {
            type: 'object',
            properties: { counts: { type: 'object', additionalProperties: { type: 'integer' } } },
            required: ['counts'],
          },
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => {
      const project = await dataProject(services, request, request.params.dataset);
      return services.documents.counts(principalOf(request), project, request.params.dataset);
    },
  );
};
