import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';

export const API_PREFIX = '/api/v1';

/** OpenAPI generated from the route schemas: JSON at /api/v1/openapi.json, UI at /api/v1/docs. */
export async function registerOpenApi(app: FastifyInstance, version: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Content service API',
        version,
        description:
          'Headless CMS backend: projects and datasets of JSON documents, GROQ queries, mutations, drafts, ' +
          'history, assets, webhooks. Every response carries X-RateLimit-Limit, X-RateLimit-Remaining and ' +
          'X-RateLimit-Reset (Unix seconds); errors use the body {statusCode, error, message}.',
      },
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: 'A JWT access token from /auth/login, or a project API token (svc_...)',
          },
        },
      },
    },
  });
  // The documentation UI is public: its routes are marked so by an onRoute hook in their own scope.
  await app.register(async (docs) => {
    docs.addHook('onRoute', (route) => {
      route.config = { ...route.config, access: 'public' };
    });
    await docs.register(swaggerUi, { routePrefix: `${API_PREFIX}/docs`, uiConfig: { docExpansion: 'list' } });
  });
  app.get(`${API_PREFIX}/openapi.json`, { config: { access: 'public' }, schema: { hide: true } }, async () => app.swagger());
}
