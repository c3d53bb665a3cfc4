import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../services.ts';
import { principalOf } from '../http/request-context.ts';
import { bearerSecurity, errorResponses, projectAccessSchema, roleSchema, safeUserSchema } from '../http/schemas.ts';
import { isSanityDialect } from '../http/api-dialect.ts';
import { namedProject } from '../http/data-project.ts';

const sanityRoleSchema = { type: 'object', properties: { name: { type: 'string' }, title: { type: 'string' } }, required: ['name', 'title'] } as const;
/** Sanity's CurrentUser; `{}` for a request without a credential. */
const sanityCurrentUserSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    email: { type: 'string' },
    profileImage: { type: 'string', nullable: true },
    provider: { type: 'string' },
    role: { type: 'string' },
    roles: { type: 'array', items: sanityRoleSchema },
  },
} as const;
const sanityUserSchema = {
  type: 'object',
  properties: { id: { type: 'string' }, displayName: { type: 'string' }, imageUrl: { type: 'string', nullable: true }, email: { type: 'string' } },
  required: ['id', 'displayName'],
} as const;
import type { NewUser, UserUpdate } from '../identity/user-service.ts';

const email = { type: 'string', minLength: 3, maxLength: 254 } as const;
const name = { type: 'string', minLength: 1, maxLength: 200 } as const;
const password = { type: 'string', minLength: 1, maxLength: 1024 } as const;
const idParams = { type: 'object', properties: { id: { type: 'string', minLength: 1 } }, required: ['id'] } as const;

export const userRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  app.get(
    '/users',
    {
      schema: {
        tags: ['users'],
        summary: 'List users (admin)',
        security: bearerSecurity,
        response: { 200: { type: 'array', items: safeUserSchema }, ...errorResponses(401, 403) },
      },
    },
    async (request) => services.users.list(principalOf(request)),
  );

  app.post<{ Body: NewUser }>(
    '/users',
    {
      schema: {
        tags: ['users'],
        summary: 'Create a user (admin); role defaults to editor',
        security: bearerSecurity,
        body: {
          type: 'object',
          properties: { email, name, password, role: roleSchema },
          required: ['email', 'name', 'password'],
          additionalProperties: false,
        },
        response: { 201: safeUserSchema, ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) => reply.code(201).send(await services.users.create(principalOf(request), request.body)),
  );

  app.get(
    '/users/me',
    {
      // Sanity's clients ask without a credential too (and must then get `{}`).
      config: { access: 'optional' },
      schema: {
        tags: ['users'],
        summary: "The signed-in user; in Sanity's API dialect its CurrentUser, with roles in the project named by X-Sanity-Project-ID",
        security: bearerSecurity,
        response: { 200: { anyOf: [safeUserSchema, sanityCurrentUserSchema] }, ...errorResponses(401, 403) },
      },
    },
    async (request) => {
      if (!isSanityDialect(request)) return services.users.me(principalOf(request));
      return services.users.sanityMe(request.principal, namedProject(request));
    },
  );

  app.get<{ Params: { ids: string } }>(
    '/users/:ids',
    {
      schema: {
        tags: ['users'],
        summary: "Users by id in Sanity's shape ({id, displayName, imageUrl}): one id, or several separated by commas",
        security: bearerSecurity,
        params: { type: 'object', properties: { ids: { type: 'string', pattern: '^[^,]+(,[^,]+){0,399}$' } }, required: ['ids'] },
        response: { 200: { type: 'array', items: sanityUserSchema }, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => services.users.sanityUsers(principalOf(request), request.params.ids.split(',')),
  );

  app.put<{ Params: { id: string }; Body: UserUpdate }>(
    '/users/:id',
    {
      schema: {
        tags: ['users'],
        summary: 'Update a user: self (name, email, password) or admin (also role, project_access)',
        security: bearerSecurity,
        params: idParams,
        body: {
          type: 'object',
          properties: { email, name, password, role: roleSchema, project_access: projectAccessSchema },
          additionalProperties: false,
        },
        response: { 200: safeUserSchema, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => services.users.update(principalOf(request), request.params.id, request.body),
  );
};
