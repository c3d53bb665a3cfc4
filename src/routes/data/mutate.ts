import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../../services.ts';
import { principalOf } from '../../http/request-context.ts';
import { dataProject } from '../../http/data-project.ts';
import { bearerSecurity, errorResponses } from '../../http/schemas.ts';
import { datasetParams, WRITE_BODY_LIMIT, writeQuery, writeAnswerSchema, type WriteQuery } from './schemas.ts';

interface MutateQuery extends WriteQuery {
  returnIds?: boolean;
  returnDocuments?: boolean;
  visibility?: 'sync' | 'async' | 'deferred';
}

export const mutateRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  app.post<{ Params: { dataset: string }; Querystring: MutateQuery; Body: { mutations: unknown; transactionId?: string } }>(
    '/data/mutate/:dataset',
    {
      bodyLimit: WRITE_BODY_LIMIT,
      schema: {
        tags: ['documents'],
        summary: 'Apply mutations in one atomic transaction',
        description:
          'Each mutation has exactly one key: create, createOrReplace, createIfNotExists, patch ' +
          '(set, setIfMissing, unset, inc, dec, insert, ifRevisionID) or delete. Patch paths use dots, [n] and ' +
          '[_key=="k"]. A patched document that does not exist fails the transaction with 404, a failed ' +
          'ifRevisionID with 409; nothing of a failed transaction is written.',
        security: bearerSecurity,
        params: datasetParams,
        querystring: {
          type: 'object',
          properties: {
            returnIds: { type: 'boolean', description: 'Add documentIds to the response' },
            returnDocuments: { type: 'boolean', description: 'Add each result document to its result' },
            dryRun: { type: 'boolean', description: 'Validate and apply, then roll back' },
            visibility: {
              type: 'string',
              enum: ['sync', 'async', 'deferred'],
              description: 'Accepted for Sanity clients; changes are always visible when the response arrives',
            },
            ...writeQuery,
          },
        },
        body: {
          type: 'object',
          properties: {
            mutations: { type: 'array', minItems: 1, description: 'The mutations, applied in order' },
            transactionId: { type: 'string', description: 'Use this id for the transaction' },
          },
          required: ['mutations'],
        },
        response: {
          200: writeAnswerSchema(['create', 'update', 'delete', 'none'], ['id', 'operation'], { required: ['transactionId', 'results'], documentIds: true }),
          ...errorResponses(400, 401, 403, 404, 409, 413, 503),
        },
      },
    },
    async (request) => {
      const { dataset } = request.params;
      const project = await dataProject(services, request, dataset);
      const { transactionId, results } = await services.mutations.mutate(principalOf(request), project, dataset, request.body.mutations, {
        dryRun: request.query.dryRun === true,
        autoGenerateArrayKeys: request.query.autoGenerateArrayKeys === true,
        transactionId: request.body.transactionId ?? request.query.transactionId,
      });
      return {
        transactionId,
        results: results.map(({ id, operation, document }) => (request.query.returnDocuments ? { id, operation, document } : { id, operation })),
        ...(request.query.returnIds ? { documentIds: results.map((result) => result.id) } : {}),
      };
    },
  );
};
