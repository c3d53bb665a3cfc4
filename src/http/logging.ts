import type { FastifyServerOptions } from 'fastify';

const SECRET_QUERY = /([?&](?:access_token|token|refreshToken)=)[^&]*/gi;

/**
 * Structured JSON logs (pino). Credentials never reach them: Authorization and Cookie headers are
 * not logged, token-bearing query parameters are masked, and bodies are never logged.
 */
export function loggerOptions(level: string): FastifyServerOptions['logger'] {
  return {
    level,
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], censor: '[redacted]' },
    serializers: {
      req(request: { method: string; url: string; ip?: string; id?: string }) {
        return { id: request.id, method: request.method, url: request.url.replace(SECRET_QUERY, '$1[redacted]'), ip: request.ip };
      },
    },
  };
}
