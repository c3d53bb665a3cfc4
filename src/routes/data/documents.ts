import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../../services.ts';
import { principalOf } from '../../http/request-context.ts';
import { dataProject } from '../../http/data-project.ts';
import { bearerSecurity, errorResponses } from '../../http/schemas.ts';
import { isSanityDialect } from '../../http/api-dialect.ts';
import { datasetParam, datasetParams, documentIdsParam, documentSchema, languageQuery, projectQuery } from './schemas.ts';
import { textStream } from '../../http/text-stream.ts';

export const documentRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  app.get<{ Params: { dataset: string; documentId: string }; Querystring: { language?: string } }>(
    '/data/doc/:dataset/:documentId',
    {
      schema: {
        tags: ['documents'],
        summary: 'A document by id; several comma-separated ids answer {documents, omitted}',
        description:
          'One id answers the document itself (404 if missing). Several ids, or any request in Sanity\'s API dialect ' +
          '(a dated /api/vYYYY-MM-DD path, or the X-Sanity-Project-ID header), answer {documents, omitted} where a ' +
          'missing id is listed in omitted with reason "existence".',
        security: bearerSecurity,
        params: {
          type: 'object',
          properties: { dataset: datasetParam, documentId: documentIdsParam },
          required: ['dataset', 'documentId'],
        },
        querystring: { type: 'object', properties: { ...languageQuery, ...projectQuery, tag: { type: 'string' } } },
        response: {
          200: {
            oneOf: [
              documentSchema,
              {
                type: 'object',
                properties: {
                  documents: { type: 'array', items: documentSchema },
                  omitted: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' }, reason: { type: 'string' } } } },
                },
                required: ['documents', 'omitted'],
              },
            ],
          },
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      const { dataset, documentId } = request.params;
      const project = await dataProject(services, request, dataset);
      const ids = documentId.split(',');
      if (ids.length > 1 || isSanityDialect(request)) {
        const text = await services.documents.getMany(principalOf(request), project, dataset, ids, request.query.language);
        return reply.type('application/json; charset=utf-8').send(textStream(text));
      }
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
