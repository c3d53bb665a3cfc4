import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../services.ts';
import { errorResponses } from '../http/schemas.ts';

export const healthRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  app.get(
    '/health',
    {
      config: { access: 'public' },
      schema: {
        tags: ['health'],
        summary: 'Service health',
        description: 'Public. `status` is `ok` when the database answers, `degraded` otherwise (503).',
        response: {
          200: {
            type: 'object',
            properties: {
              status: { type: 'string' },
              timestamp: { type: 'string', format: 'date-time' },
              connections: { type: 'integer', description: 'Open WebSocket connections (listeners, GET /data/listen, and presence, /socket) on this instance' },
            },
            required: ['status', 'timestamp', 'connections'],
          },
          503: {
            type: 'object',
            properties: { status: { type: 'string' }, timestamp: { type: 'string' }, connections: { type: 'integer' } },
          },
          ...errorResponses(),
        },
      },
    },
    async (_request, reply) => {
      const healthy = await services.store.ping().then(
        () => true,
        () => false,
      );
      return reply
        .code(healthy ? 200 : 503)
        .send({ status: healthy ? 'ok' : 'degraded', timestamp: new Date().toISOString(), connections: services.realtime.connections });
    },
  );
};
