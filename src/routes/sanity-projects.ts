import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../services.ts';
import { principalOf } from '../http/request-context.ts';
import { bearerSecurity, errorResponses } from '../http/schemas.ts';
import { datasetParam } from './data/schemas.ts';

const projectParams = { type: 'object', properties: { project: { type: 'string', minLength: 1 } }, required: ['project'] } as const;
const grantSchema = {
  type: 'object',
  properties: { filter: { type: 'string' }, permissions: { type: 'array', items: { type: 'string' } } },
  required: ['filter', 'permissions'],
} as const;

/**
 * What Sanity Studio reads about a project beyond its documents: the grants it evaluates to
 * enable forms and actions, the datasets, and apps of the project (none here).
 */
export const sanityProjectRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  app.get<{ Params: { project: string; dataset: string } }>(
    '/projects/:project/datasets/:dataset/acl',
    {
      schema: {
        tags: ['projects'],
        summary: "The caller's document grants in a dataset: [{filter, permissions}] as Sanity Studio reads them",
        security: bearerSecurity,
        params: { type: 'object', properties: { project: { type: 'string', minLength: 1 }, dataset: datasetParam }, required: ['project', 'dataset'] },
        response: { 200: { type: 'array', items: grantSchema }, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => services.projects.grants(principalOf(request), request.params.project, request.params.dataset),
  );

  app.get<{ Params: { project: string } }>(
    '/projects/:project/datasets',
    {
      schema: {
        tags: ['projects'],
        summary: "The project's datasets in Sanity's shape ([{name, aclMode}])",
        security: bearerSecurity,
        params: projectParams,
        response: {
          200: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, aclMode: { type: 'string' } }, required: ['name', 'aclMode'] } },
          ...errorResponses(401, 403, 404),
        },
      },
    },
    async (request) => services.projects.sanityDatasets(principalOf(request), request.params.project),
  );

  app.get<{ Params: { project: string } }>(
    '/projects/:project/user-applications',
    {
      schema: {
        tags: ['projects'],
        summary: 'Applications deployed for the project (Sanity hosts them; none here)',
        security: bearerSecurity,
        params: projectParams,
        response: { 200: { type: 'array', maxItems: 0 }, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      await services.projects.sanityDatasets(principalOf(request), request.params.project);
      return [];
    },
  );
};
