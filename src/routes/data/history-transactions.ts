import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.ts';
import { AppError } from '../../errors.ts';
import { principalOf } from '../../http/request-context.ts';
import { dataProject } from '../../http/data-project.ts';
import { bearerSecurity, errorResponses } from '../../http/schemas.ts';
import { datasetParam, documentIdsParam, documentSchema, projectQuery } from './schemas.ts';
import { textStream } from '../../http/text-stream.ts';

const idsParams = {
  type: 'object',
  properties: { dataset: datasetParam, documentIds: documentIdsParam },
  required: ['dataset', 'documentIds'],
} as const;

interface TransactionsQuerystring {
  excludeContent?: boolean;
  excludeMutations?: boolean;
  effectFormat?: 'mendoza';
  reverse?: boolean;
  limit?: number;
  fromTransaction?: string;
  toTransaction?: string;
  fromTime?: string;
  toTime?: string;
  authors?: string;
  includeIdentifiedDocumentsOnly?: boolean;
}

const transactionId = { type: 'string', minLength: 1, maxLength: 200 } as const;
const time = { type: 'string', minLength: 1, maxLength: 64, description: 'ISO 8601 date and time' } as const;

/** `a,b,,c ` -> ['a', 'b', 'c']. */
const list = (value: string) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);

/**
 * One NDJSON line per transaction. The answer starts once the query is checked, so its errors are
 * ordinary HTTP errors; a failure while streaming ends the body with a line `{"error": {...}}`,
 * which is how Sanity reports one there (Studio's reader throws on it).
 */
export async function* ndjson(lines: AsyncIterable<string>, log: FastifyInstance['log']): AsyncGenerator<string> {
  // Lines come in pieces: one cut short by a failure is ended before the error's line.
  let lineEnded = true;
  try {
    for await (const piece of lines) {
      yield piece;
      lineEnded = piece.endsWith('\n');
    }
  } catch (error) {
    const known = error instanceof AppError && error.statusCode < 500;
    if (!known) log.error({ err: error }, 'reading the transaction history failed');
    yield `${lineEnded ? '' : '\n'}${JSON.stringify({ error: { type: known ? error.code : 'internalError', description: known ? error.message : 'An internal error occurred' } })}\n`;
  }
}

/**
 * Sanity's History API (Studio's history panel, review changes and restore), beside the service's
 * own `/data/history/:dataset/:documentId` routes: the static segments `transactions` and `documents`
 * take precedence over `:documentId` (docs/decisions.md, "History (Sanity's History API)").
 */
export function registerSanityHistoryRoutes(app: FastifyInstance, services: Services): void {
  app.get<{ Params: { dataset: string; documentIds: string }; Querystring: TransactionsQuerystring }>(
    '/data/history/:dataset/transactions/:documentIds',
    {
      schema: {
        tags: ['history'],
        summary: 'Transactions that touched the documents (comma-separated ids), as NDJSON lines in Sanity\'s shape',
        description:
          'Each line: {id, timestamp, author, documentIDs, effects?, mutations?}. effectFormat=mendoza adds ' +
          '{<documentId>: {apply, revert}} mendoza patches; mutations are left out with excludeMutations=true. ' +
          'fromTransaction and toTransaction are inclusive, as are fromTime and toTime. excludeContent=false is refused (403), as Sanity does.',
        security: bearerSecurity,
        params: idsParams,
        querystring: {
          type: 'object',
          properties: {
            excludeContent: { type: 'boolean' },
            excludeMutations: { type: 'boolean', default: false },
            effectFormat: { type: 'string', enum: ['mendoza'] },
            reverse: { type: 'boolean', default: false, description: 'Newest first' },
            limit: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
            fromTransaction: transactionId,
            toTransaction: transactionId,
            fromTime: time,
            toTime: time,
            authors: { type: 'string', maxLength: 10_000, description: 'Comma-separated author ids (user ids, token:<id>, system), 1 to 100' },
            includeIdentifiedDocumentsOnly: { type: 'boolean', default: false },
            tag: { type: 'string' },
            ...projectQuery,
          },
        },
        response: { 200: { type: 'string', description: 'NDJSON, one transaction per line' }, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { dataset, documentIds } = request.params;
      const { query } = request;
      const project = await dataProject(services, request, dataset);
      const lines = await services.history.transactions(principalOf(request), project, dataset, {
        documentIds: list(documentIds),
        ...(query.excludeContent !== undefined ? { excludeContent: query.excludeContent } : {}),
        effects: query.effectFormat === 'mendoza',
        mutations: query.excludeMutations !== true,
        reverse: query.reverse === true,
        ...(query.limit !== undefined ? { limit: query.limit } : {}),
        ...(query.fromTransaction !== undefined ? { fromTransaction: query.fromTransaction } : {}),
        ...(query.toTransaction !== undefined ? { toTransaction: query.toTransaction } : {}),
        ...(query.fromTime !== undefined ? { fromTime: query.fromTime } : {}),
        ...(query.toTime !== undefined ? { toTime: query.toTime } : {}),
        ...(query.authors !== undefined ? { authors: list(query.authors) } : {}),
        identifiedOnly: query.includeIdentifiedDocumentsOnly === true,
      });
      reply.header('Content-Type', 'application/x-ndjson');
      return reply.send(textStream(ndjson(lines, request.log)));
    },
  );

  app.get<{ Params: { dataset: string; documentIds: string }; Querystring: { revision?: string; time?: string; lastRevision?: boolean } }>(
    '/data/history/:dataset/documents/:documentIds',
    {
      schema: {
        tags: ['history'],
        summary: 'Documents (comma-separated ids) as they were at a revision, at a time, or last before deletion: {documents}',
        description:
          'Exactly one of: revision (a transaction id: the documents as that transaction left them), time (ISO 8601), ' +
          'lastRevision=true (the current document, or a deleted one as it was last). Documents that did not exist then are left out.',
        security: bearerSecurity,
        params: idsParams,
        querystring: {
          type: 'object',
          properties: { revision: transactionId, time, lastRevision: { type: 'boolean' }, tag: { type: 'string' }, ...projectQuery },
        },
        response: {
          200: { type: 'object', properties: { documents: { type: 'array', items: documentSchema } }, required: ['documents'] },
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      const { dataset, documentIds } = request.params;
      const { revision, time: at, lastRevision } = request.query;
      const project = await dataProject(services, request, dataset);
      const text = await services.history.documentsAt(principalOf(request), project, dataset, list(documentIds), {
        ...(revision !== undefined ? { revision } : {}),
        ...(at !== undefined ? { time: at } : {}),
        ...(lastRevision !== undefined ? { lastRevision } : {}),
      });
      return reply.type('application/json; charset=utf-8').send(textStream(text));
    },
  );
}
