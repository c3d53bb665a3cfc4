import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../services.ts';
import { errorResponses } from '../http/schemas.ts';

const report = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['ready', 'draining', 'unavailable'] },
    timestamp: { type: 'string', format: 'date-time' },
    checks: { type: 'object', additionalProperties: { type: 'string', enum: ['ok', 'failed'] } },
  },
  required: ['status', 'timestamp', 'checks'],
} as const;

/** GET /ready: the load balancer's readiness probe (GET /health keeps its documented shape). */
export const readyRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  app.get(
    '/ready',
    {
      config: { access: 'public' },
      schema: {
        tags: ['health'],
        summary: 'Readiness for a load balancer',
        description:
          'Public. 200 `ready` while this instance should get traffic; 503 `unavailable` while the database does not answer, and 503 `draining` from the moment the instance starts shutting down (it still finishes the requests it has).',
        response: { 200: report, 503: report, ...errorResponses() },
      },
    },
    async (_request, reply) => {
      const { ready, status, checks } = await services.readiness.report();
      return reply.code(ready ? 200 : 503).send({ status, timestamp: new Date().toISOString(), checks });
    },
  );
};
