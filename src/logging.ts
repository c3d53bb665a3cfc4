import { pino, type Logger } from 'pino';

export type { Logger };

const SECRET_QUERY = /([?&](?:access_token|token|refreshToken)=)[^&]*/gi;

/**
 * Structured JSON logs (pino), shared by the HTTP server and background workers. Credentials never
 * reach them: a request is logged as its id, method, URL (token-bearing query parameters masked)
 * and client address only, never its headers or body. (No pino `redact`: the serializer leaves
 * nothing for it, and it copied every request it was given before each line.)
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({
    level,
    serializers: {
      req(request: { method: string; url: string; ip?: string; id?: string }) {
        return { id: request.id, method: request.method, url: request.url.replace(SECRET_QUERY, '$1[redacted]'), ip: request.ip };
      },
    },
  }, destination);
}
