import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../../services.ts';
import { principalOf } from '../../http/request-context.ts';
import { dataProject } from '../../http/data-project.ts';
import { bearerSecurity, errorResponses, paginationQuery } from '../../http/schemas.ts';
import { HISTORY_DEFAULT_LIMIT, HISTORY_MAX_LIMIT } from '../../content/history-service.ts';
import { datasetParam, documentIdParam, documentParams, documentSchema, projectQuery } from './schemas.ts';
import { registerSanityHistoryRoutes } from './history-transactions.ts';

const revisionParams = {
  type: 'object',
  properties: { dataset: datasetParam, documentId: documentIdParam, revision: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER } },
  required: ['dataset', 'documentId', 'revision'],
} as const;
const revisionItem = {
  id: { type: 'string' },
  revision: { type: 'integer' },
  changed_by: { type: 'string', nullable: true },
  created_at: { type: 'string' },
} as const;

type RevisionRequest = { Params: { dataset: string; documentId: string; revision: number } };

export const historyRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  // Sanity's History API: /transactions/:ids and /documents/:ids win over /:documentId/:revision.
  registerSanityHistoryRoutes(app, services);

  app.get<{ Params: { dataset: string; documentId: string }; Querystring: { limit: number; offset: number } }>(
    '/data/history/:dataset/:documentId',
    {
      schema: {
        tags: ['history'],
        summary: 'Revisions of a document (draft and published share one history), newest first',
        security: bearerSecurity,
        params: documentParams,
        querystring: {
          type: 'object',
          properties: {
            ...paginationQuery(HISTORY_DEFAULT_LIMIT, HISTORY_MAX_LIMIT),
            ...projectQuery,
          },
        },
        response: {
          200: {
            type: 'object',
            properties: {
              documentId: { type: 'string' },
              revisions: { type: 'array', items: { type: 'object', properties: revisionItem, required: Object.keys(revisionItem) } },
            },
            required: ['documentId', 'revisions'],
          },
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => {
      const { dataset, documentId } = request.params;
      const project = await dataProject(services, request, dataset);
      return services.history.list(principalOf(request), project, dataset, documentId, request.query.limit, request.query.offset);
    },
  );

  app.get<RevisionRequest>(
    '/data/history/:dataset/:documentId/:revision',
    {
      schema: {
        tags: ['history'],
        summary: 'One revision with the full document content',
        security: bearerSecurity,
        params: revisionParams,
        querystring: { type: 'object', properties: projectQuery },
        response: {
          200: {
            type: 'object',
            properties: { ...revisionItem, documentId: { type: 'string' }, document: documentSchema },
            required: ['id', 'documentId', 'revision', 'changed_by', 'created_at', 'document'],
          },
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => {
      const { dataset, documentId, revision } = request.params;
      const project = await dataProject(services, request, dataset);
      return services.history.get(principalOf(request), project, dataset, documentId, revision);
    },
  );

  app.post<RevisionRequest>(
    '/data/history/:dataset/:documentId/:revision/restore',
    {
      schema: {
        tags: ['history'],
        summary: "Restore a revision's content as the draft (a new revision); publish it as usual",
        security: bearerSecurity,
        params: revisionParams,
        querystring: { type: 'object', properties: projectQuery },
        response: { 200: documentSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { dataset, documentId, revision } = request.params;
      const project = await dataProject(services, request, dataset);
      return services.history.restore(principalOf(request), project, dataset, documentId, revision);
    },
  );
};
