import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../services.ts';
import { principalOf } from '../http/request-context.ts';
import { bearerSecurity, errorResponses, projectAccessSchema, roleSchema, safeUserSchema } from '../http/schemas.ts';
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
      schema: {
        tags: ['users'],
        summary: 'The signed-in user',
        security: bearerSecurity,
        response: { 200: safeUserSchema, ...errorResponses(401, 403) },
      },
    },
    async (request) => services.users.me(principalOf(request)),
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
