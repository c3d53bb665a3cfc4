import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../services.ts';
import { errorResponses, sessionSchema } from '../http/schemas.ts';
import { SESSION_TOKEN_PREFIX, type Session } from '../identity/auth-service.ts';
import { badRequest } from '../errors.ts';
import { credentialOf } from '../http/request-context.ts';
import { clearSessionCookie } from '../http/session-cookie.ts';

const refreshBody = {
  type: 'object',
  properties: { refreshToken: { type: 'string', minLength: 1, maxLength: 512 } },
  required: ['refreshToken'],
  additionalProperties: false,
} as const;

const publicAuth = { access: 'public', rateLimitGroup: 'auth' } as const;

function sessionView(session: Session) {
  const { user } = session;
  return {
    accessToken: session.accessToken,
    refreshToken: session.refreshToken,
    user: { id: user.id, email: user.email, name: user.name, role: user.role, created_at: user.createdAt, updated_at: user.updatedAt },
  };
}

export const authRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  app.post<{ Body: { email: string; password: string } }>(
    '/auth/login',
    {
      config: publicAuth,
      schema: {
        tags: ['auth'],
        summary: 'Sign in with email and password',
        body: {
          type: 'object',
          properties: { email: { type: 'string', minLength: 1, maxLength: 254 }, password: { type: 'string', minLength: 1, maxLength: 1024 } },
          required: ['email', 'password'],
          additionalProperties: false,
        },
        response: { 200: sessionSchema, ...errorResponses(400, 401) },
      },
    },
    async (request) => sessionView(await services.auth.login(request.body.email, request.body.password)),
  );

  app.post<{ Body: { refreshToken: string } }>(
    '/auth/refresh',
    {
      config: publicAuth,
      schema: {
        tags: ['auth'],
        summary: 'Exchange a refresh token for a new token pair (the old refresh token is invalidated)',
        body: refreshBody,
        response: { 200: sessionSchema, ...errorResponses(400, 401) },
      },
    },
    async (request) => sessionView(await services.auth.refresh(request.body.refreshToken)),
  );

  app.post<{ Body: { refreshToken?: string } }>(
    '/auth/logout',
    {
      config: publicAuth,
      // Studio signs out with no body at all.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        tags: ['auth'],
        summary: "Revoke a refresh token; or, with no body, the login page's session sent as the bearer token (Sanity Studio's sign-out)",
        body: { ...refreshBody, required: [] },
        response: {
          200: { type: 'object', properties: { ok: { type: 'boolean', const: true } }, required: ['ok'] },
          ...errorResponses(400),
        },
      },
    },
    async (request, reply) => {
      const refreshToken = request.body.refreshToken;
      if (refreshToken !== undefined) {
        await services.auth.logout(refreshToken);
        return { ok: true };
      }
      const credential = credentialOf(request);
      if (credential === undefined || !credential.startsWith(SESSION_TOKEN_PREFIX)) throw badRequest('body/refreshToken is required (or a session as the bearer token)');
      await services.auth.endBrowserSession(credential);
      clearSessionCookie(reply);
      return { ok: true };
    },
  );
};
