import { isSanityDialect } from '../http/api-dialect.ts';
import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../services.ts';
import { principalOf } from '../http/request-context.ts';
import { bearerSecurity, errorResponses, localesSchema, projectSchema } from '../http/schemas.ts';
import type { NewProject, ProjectUpdate } from '../projects/project-service.ts';

const datasets = { type: 'array', items: { type: 'string', minLength: 1, maxLength: 64 }, maxItems: 100 } as const;
const name = { type: 'string', minLength: 1, maxLength: 200 } as const;
const slugParams = { type: 'object', properties: { slug: { type: 'string', minLength: 1 } }, required: ['slug'] } as const;

const sanityRoleSchema = { type: 'object', properties: { name: { type: 'string' }, title: { type: 'string' } } } as const;
/** Sanity's project, as Studio reads it. */
const sanityProjectSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    displayName: { type: 'string' },
    studioHost: { type: 'null' },
    organizationId: { type: 'null' },
    metadata: { type: 'object' },
    isBlocked: { type: 'boolean' },
    isDisabled: { type: 'boolean' },
    createdAt: { type: 'string' },
    members: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          role: { type: 'string' },
          roles: { type: 'array', items: sanityRoleSchema },
          isCurrentUser: { type: 'boolean' },
          isRobot: { type: 'boolean' },
          createdAt: { type: 'string' },
        },
      },
    },
  },
  required: ['id', 'displayName', 'members'],
} as const;

export const projectRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  app.get(
    '/projects',
    {
      schema: {
        tags: ['projects'],
        summary: 'Projects the caller can access',
        security: bearerSecurity,
        response: { 200: { type: 'array', items: projectSchema }, ...errorResponses(401) },
      },
    },
    async (request) => services.projects.list(principalOf(request)),
  );

  app.post<{ Body: NewProject }>(
    '/projects',
    {
      schema: {
        tags: ['projects'],
        summary: 'Create a project (admin); datasets default to ["production"]',
        security: bearerSecurity,
        body: {
          type: 'object',
          properties: { name, slug: { type: 'string', minLength: 1, maxLength: 64 }, datasets },
          required: ['name', 'slug'],
          additionalProperties: false,
        },
        response: { 201: projectSchema, ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) => reply.code(201).send(await services.projects.create(principalOf(request), request.body)),
  );

  app.get<{ Params: { slug: string } }>(
    '/projects/:slug',
    {
      schema: {
        tags: ['projects'],
        summary: "A project by slug (or id); in Sanity's API dialect Sanity's shape, with its members",
        security: bearerSecurity,
        params: slugParams,
        response: { 200: { anyOf: [projectSchema, sanityProjectSchema] }, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) =>
      isSanityDialect(request) ? services.projects.sanityView(principalOf(request), request.params.slug) : services.projects.get(principalOf(request), request.params.slug),
  );

  app.put<{ Params: { slug: string }; Body: ProjectUpdate }>(
    '/projects/:slug',
    {
      schema: {
        tags: ['projects'],
        summary: 'Update name, datasets or locales (admin)',
        security: bearerSecurity,
        params: slugParams,
        body: {
          type: 'object',
          properties: { name, datasets, locales: localesSchema },
          additionalProperties: false,
        },
        response: { 200: projectSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => services.projects.update(principalOf(request), request.params.slug, request.body),
  );
};
