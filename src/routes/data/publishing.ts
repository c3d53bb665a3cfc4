import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../../services.ts';
import { principalOf } from '../../http/request-context.ts';
import { dataProject } from '../../http/data-project.ts';
import { bearerSecurity, errorResponses } from '../../http/schemas.ts';
import { documentParams, documentSchema, projectQuery } from './schemas.ts';

type DocumentRequest = { Params: { dataset: string; documentId: string } };

const scheduleSchema = {
  type: 'object',
  properties: { documentId: { type: 'string' }, scheduledAt: { type: 'string', nullable: true } },
  required: ['documentId', 'scheduledAt'],
} as const;
const querystring = { type: 'object', properties: projectQuery } as const;

export const publishingRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  app.post<DocumentRequest>(
    '/data/publish/:dataset/:documentId',
    {
      schema: {
        tags: ['publishing'],
        summary: "Publish the document's draft (base or draft id); the draft is removed",
        security: bearerSecurity,
        params: documentParams,
        querystring,
        response: { 200: documentSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { dataset, documentId } = request.params;
      const project = await dataProject(services, request, dataset);
      return services.publishing.publish(principalOf(request), project, dataset, documentId);
    },
  );

  app.post<DocumentRequest>(
    '/data/unpublish/:dataset/:documentId',
    {
      schema: {
        tags: ['publishing'],
        summary: 'Unpublish: the published document is removed; without a draft its content becomes the draft',
        security: bearerSecurity,
        params: documentParams,
        querystring,
        response: { 200: documentSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { dataset, documentId } = request.params;
      const project = await dataProject(services, request, dataset);
      return services.publishing.unpublish(principalOf(request), project, dataset, documentId);
    },
  );

  app.post<DocumentRequest & { Body: { scheduledAt: string | null } }>(
    '/data/schedule/:dataset/:documentId',
    {
      schema: {
        tags: ['publishing'],
        summary: 'Schedule the draft to be published at scheduledAt (ISO 8601), or cancel with null',
        security: bearerSecurity,
        params: documentParams,
        querystring,
        body: {
          type: 'object',
          properties: { scheduledAt: { description: 'ISO 8601 timestamp, or null to cancel' } },
          required: ['scheduledAt'],
          additionalProperties: false,
        },
        response: { 200: scheduleSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { dataset, documentId } = request.params;
      const project = await dataProject(services, request, dataset);
      return services.publishing.schedule(principalOf(request), project, dataset, documentId, request.body.scheduledAt);
    },
  );

  app.get<DocumentRequest>(
    '/data/schedule/:dataset/:documentId',
    {
      schema: {
        tags: ['publishing'],
        summary: 'The scheduled publishing time of a document, or null',
        security: bearerSecurity,
        params: documentParams,
        querystring,
        response: { 200: scheduleSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { dataset, documentId } = request.params;
      const project = await dataProject(services, request, dataset);
      return services.publishing.getSchedule(principalOf(request), project, dataset, documentId);
    },
  );
};
