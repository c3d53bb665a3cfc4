import { pino, type Logger } from 'pino';

export type { Logger };

const SECRET_QUERY = /([?&](?:access_token|token|refreshToken)=)[^&]*/gi;

/**
 * Structured JSON logs (pino), shared by the HTTP server and background workers. Credentials never
 * reach them: Authorization and Cookie headers are redacted, token-bearing query parameters are
 * masked, and bodies are never logged.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({
    level,
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], censor: '[redacted]' },
    serializers: {
      req(request: { method: string; url: string; ip?: string; id?: string }) {
        return { id: request.id, method: request.method, url: request.url.replace(SECRET_QUERY, '$1[redacted]'), ip: request.ip };
      },
    },
  }, destination);
}
