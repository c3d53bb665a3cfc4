import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../../services.ts';
import { principalOf } from '../../http/request-context.ts';
import { dataProject } from '../../http/data-project.ts';
import { bearerSecurity, errorResponses } from '../../http/schemas.ts';
import { parsedResult, type QueryResponse } from '../../content/query/query-service.ts';
import { documentParams, projectQuery } from './schemas.ts';

/** The documents that refer to one (drafts included), at most this many listed; all counted. */
const LISTED = 100;
const REFERRING = `{"totalCount": count(*[references($id)]), "ids": *[references($id)][0...${LISTED}]._id}`;

function valueOf(response: QueryResponse): Promise<unknown> | unknown {
  if (response.kind === 'json') return parsedResult(response.json);
  if (response.kind === 'value') return response.result;
  return (async () => {
    const items: unknown[] = [];
    for await (const item of response.items) items.push(item);
    return items;
  })();
}

/** Sanity's "what refers to this document", which Studio's delete and unpublish dialogs show. */
export const referenceRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  app.get<{ Params: { dataset: string; documentId: string } }>(
    '/data/references/:dataset/documents/:documentId/to',
    {
      schema: {
        tags: ['documents'],
        summary: `Documents that refer to this one: {totalCount, references: [{projectId, datasetName, documentId}]} (at most ${LISTED} listed)`,
        security: bearerSecurity,
        params: documentParams,
        querystring: { type: 'object', properties: { excludeInternalReferences: { type: 'boolean' }, excludePaths: { type: 'boolean' }, tag: { type: 'string' }, ...projectQuery } },
        response: {
          200: {
            type: 'object',
            properties: {
              totalCount: { type: 'integer' },
              references: { type: 'array', items: { type: 'object', properties: { projectId: { type: 'string' }, datasetName: { type: 'string' }, documentId: { type: 'string' } } } },
            },
            required: ['totalCount', 'references'],
          },
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => {
      const { dataset, documentId } = request.params;
      const project = await dataProject(services, request, dataset);
      const response = await services.queries.query(principalOf(request), project, dataset, { query: REFERRING, params: { id: documentId } });
      const { totalCount, ids } = (await valueOf(response)) as { totalCount: number; ids: string[] };
      return { totalCount, references: ids.map((id) => ({ projectId: project.id, datasetName: dataset, documentId: id })) };
    },
  );
};
