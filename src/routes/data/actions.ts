import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../../services.ts';
import { principalOf } from '../../http/request-context.ts';
import { dataProject } from '../../http/data-project.ts';
import { bearerSecurity, errorResponses } from '../../http/schemas.ts';
import { datasetParams, WRITE_BODY_LIMIT, writeQuery, writeAnswerSchema, type WriteQuery } from './schemas.ts';

interface ActionsBody {
  actions: unknown;
  transactionId?: string;
  dryRun?: boolean;
  skipCrossDatasetReferenceValidation?: boolean;
}


/** POST /data/actions/:dataset: Sanity's Actions API (Studio 5.25 and later write only through it). */
export const actionRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  app.post<{ Params: { dataset: string }; Querystring: WriteQuery; Body: ActionsBody }>(
    '/data/actions/:dataset',
    {
      bodyLimit: WRITE_BODY_LIMIT,
      schema: {
        tags: ['documents'],
        summary: "Apply Sanity's document actions in one atomic transaction",
        description:
          'Each action has an actionType: sanity.action.document.create, edit, replaceDraft, publish, unpublish, ' +
          'discard, delete, and version.create, version.discard, version.replace on drafts (there are no content ' +
          'releases). A missing document fails the transaction with 404, an existing one or a failed revision check ' +
          'with 409; nothing of a failed transaction is written. dryRun answers what would change, with results.',
        security: bearerSecurity,
        params: datasetParams,
        querystring: {
          type: 'object',
          properties: { dryRun: { type: 'boolean', description: 'Apply, answer, then roll back (also accepted in the body)' }, ...writeQuery },
        },
        body: {
          type: 'object',
          properties: {
            actions: { type: 'array', minItems: 1, description: 'The actions, applied in order' },
            transactionId: { type: 'string', description: 'Use this id for the transaction' },
            dryRun: { type: 'boolean', description: 'Apply, answer, then roll back' },
            skipCrossDatasetReferenceValidation: { type: 'boolean', description: 'Accepted; there are no cross-dataset references' },
          },
          required: ['actions'],
        },
        response: {
          200: writeAnswerSchema(['create', 'update', 'delete'], ['id', 'operation', 'document'], {
            required: ['transactionId'],
            resultsDescription: 'Only in a dry run: each document the transaction would write',
          }),
          ...errorResponses(400, 401, 403, 404, 409, 413, 503),
        },
      },
    },
    async (request) => {
      const { dataset } = request.params;
      const project = await dataProject(services, request, dataset);
      const dryRun = request.body.dryRun === true || request.query.dryRun === true;
      const { transactionId, results } = await services.actions.perform(principalOf(request), project, dataset, request.body.actions, {
        dryRun,
        transactionId: request.body.transactionId ?? request.query.transactionId,
        autoGenerateArrayKeys: request.query.autoGenerateArrayKeys === true,
      });
      // Sanity answers {transactionId}; a dry run also says what it would have written.
      return dryRun ? { transactionId, results } : { transactionId };
    },
  );
};
