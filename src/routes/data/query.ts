import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../../services.ts';
import { principalOf } from '../../http/request-context.ts';
import { dataProject } from '../../http/data-project.ts';
import { bearerSecurity, errorResponses } from '../../http/schemas.ts';
import type { QueryRequest } from '../../content/query/query-service.ts';
import { datasetParams, languageQuery, projectQuery } from './schemas.ts';

export const queryRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  app.post<{ Params: { dataset: string }; Querystring: { language?: string }; Body: Omit<QueryRequest, 'language'> }>(
    '/data/query/:dataset',
    {
      schema: {
        tags: ['documents'],
        summary: 'Run a GROQ query (drafts and published documents alike)',
        description: 'Syntax errors answer 400 with the line, column and position; a parameter the query uses but params lacks is 400.',
        security: bearerSecurity,
        params: datasetParams,
        querystring: { type: 'object', properties: { ...languageQuery, ...projectQuery } },
        body: {
          type: 'object',
          properties: {
            query: { type: 'string', minLength: 1, maxLength: 256 * 1024 },
            params: { type: 'object', additionalProperties: true, description: 'Values of $name parameters' },
          },
          required: ['query'],
          additionalProperties: false,
        },
        response: {
          200: {
            type: 'object',
            properties: { query: { type: 'string' }, ms: { type: 'number' }, result: { description: 'Any JSON value' } },
            required: ['query', 'ms', 'result'],
          },
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => {
      const { dataset } = request.params;
      const project = await dataProject(services, request, dataset);
      return services.queries.query(principalOf(request), project, dataset, { ...request.body, language: request.query.language });
    },
  );
};
