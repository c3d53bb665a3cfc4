import type { Readable } from 'node:stream';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../../services.ts';
import { principalOf } from '../../http/request-context.ts';
import { dataProject } from '../../http/data-project.ts';
import { parametersFromQueryString } from '../../http/query-parameters.ts';
import { bearerSecurity, errorResponses } from '../../http/schemas.ts';
import { answerJson, type QueryRequest, type QueryResponse } from '../../content/query/query-service.ts';
import { parsePerspective, PUBLISHED, RAW } from '../../content/query/perspectives.ts';
import { isPublishedByDefault } from '../../http/api-dialect.ts';
import { datasetParams, languageQuery, projectQuery } from './schemas.ts';
import { textStream } from '../../http/text-stream.ts';

interface QueryOptions {
  language?: string;
  perspective?: string;
  /** `false` leaves the query text out of the response (Sanity's returnQuery). */
  returnQuery?: boolean;
  tag?: string;
  explain?: boolean;
}

const optionsQuery = {
  ...languageQuery,
  ...projectQuery,
  perspective: {
    type: 'string',
    maxLength: 1024,
    description:
      'raw (drafts and published alike), published, drafts (drafts over published), or a stack of release ids and drafts, topmost first (rSpring,drafts). ' +
      'Default: raw on /api/v1 and API versions before 2025-02-19; published from 2025-02-19 (and vX), as Sanity does',
  },
  returnQuery: { type: 'boolean', description: 'false leaves the query out of the response' },
  tag: { type: 'string', maxLength: 200, description: 'A request tag, accepted for Sanity clients' },
  explain: { type: 'boolean', description: 'true adds `plan`: per scan, what the indexes answered and what was evaluated' },
} as const;

const responses = {
  200: {
    type: 'object',
    properties: {
      query: { type: 'string' },
      ms: { type: 'number' },
      result: { description: 'Any JSON value' },
      plan: { type: 'object', additionalProperties: true, description: 'With ?explain=true: the query plan' },
    },
    required: ['ms', 'result'],
  },
  ...errorResponses(400, 401, 403, 404),
} as const;

/**
 * The response of a streamed result as JSON text written while the result is computed (chunks of
 * about 64 KB): `ms` and `plan` come after `result`, when they are known.
 */
function streamJson(response: Extract<QueryResponse, { kind: 'stream' }>, withQuery: boolean): Readable {
  return textStream(
    (async function* () {
      let chunk = `{${withQuery ? `"query":${JSON.stringify(response.query)},` : ''}"result":[`;
      let first = true;
      for await (const item of response.items) {
        chunk += `${first ? '' : ','}${answerJson(item)}`;
        first = false;
        if (chunk.length >= 65_536) {
          yield chunk;
          chunk = '';
        }
      }
      const { ms, plan } = response.finish();
      yield `${chunk}],"ms":${ms}${plan ? `,"plan":${JSON.stringify(plan)}` : ''}}`;
    })(),
  );
}

export const queryRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  async function answer(request: FastifyRequest<{ Params: { dataset: string } }>, reply: FastifyReply, body: Omit<QueryRequest, 'language' | 'perspective'>, options: QueryOptions) {
    const { dataset } = request.params;
    const project = await dataProject(services, request, dataset);
    const response = await services.queries.query(principalOf(request), project, dataset, {
      ...body,
      language: options.language,
      perspective: options.perspective === undefined ? (isPublishedByDefault(request) ? PUBLISHED : RAW) : parsePerspective(options.perspective),
      explain: options.explain === true,
    }, { verbatim: true });
    const withQuery = options.returnQuery !== false;
    const json = 'application/json; charset=utf-8';
    const head = `{${withQuery ? `"query":${JSON.stringify(response.query)},` : ''}"result":`;
    const tail = (ms: number) => `,"ms":${ms}}`;
    switch (response.kind) {
      case 'stream':
        return reply.type(json).send(streamJson(response, withQuery));
      case 'json': {
        // A query worker's result is JSON already, in bytes outside the heap: sent as they are
        // between the envelope's ends, neither parsed nor copied into a string.
        const { buffer, byteOffset, byteLength } = response.json;
        return reply.type(json).send(textStream([Buffer.from(head), Buffer.from(buffer, byteOffset, byteLength), Buffer.from(tail(response.ms))]));
      }
      case 'value': {
        // Whole documents go out as the text they were read from (answerJson).
        if (!response.plan) return reply.type(json).send(`${head}${answerJson(response.result)}${tail(response.ms)}`);
        const { kind: _kind, query, ...rest } = response;
        return withQuery ? { query, ...rest } : rest;
      }
    }
  }

  app.post<{ Params: { dataset: string }; Querystring: QueryOptions; Body: Omit<QueryRequest, 'language' | 'perspective'> }>(
    '/data/query/:dataset',
    {
      schema: {
        tags: ['documents'],
        summary: 'Run a GROQ query (drafts and published documents alike, unless perspective says otherwise)',
        description: 'Syntax errors answer 400 with the line, column and position; a parameter the query uses but params lacks is 400.',
        security: bearerSecurity,
        params: datasetParams,
        querystring: { type: 'object', properties: optionsQuery },
        body: {
          type: 'object',
          properties: {
            query: { type: 'string', minLength: 1, maxLength: 256 * 1024 },
            params: { type: 'object', additionalProperties: true, description: 'Values of $name parameters' },
          },
          required: ['query'],
          additionalProperties: false,
        },
        response: responses,
      },
    },
    async (request, reply) => answer(request, reply, request.body, request.query),
  );

  app.get<{ Params: { dataset: string }; Querystring: QueryOptions & { query: string } & Record<string, unknown> }>(
    '/data/query/:dataset',
    {
      schema: {
        tags: ['documents'],
        summary: 'Run a GROQ query given in the URL: ?query=...&$name=<JSON value> (as Sanity clients send short queries)',
        security: bearerSecurity,
        params: datasetParams,
        querystring: {
          type: 'object',
          properties: { query: { type: 'string', minLength: 1, maxLength: 16 * 1024 }, ...optionsQuery },
          required: ['query'],
        },
        response: responses,
      },
    },
    async (request, reply) => answer(request, reply, { query: request.query.query, params: parametersFromQueryString(request.query) }, request.query),
  );
};
