import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';

export interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
}

export function errorBody(statusCode: number, message: string): ErrorBody {
  return { statusCode, error: STATUS_CODES[statusCode] ?? 'Error', message };
}

function send(reply: FastifyReply, statusCode: number, message: string) {
  return reply.code(statusCode).type('application/json; charset=utf-8').send(errorBody(statusCode, message));
}

/**
 * The one place errors become HTTP: AppError keeps its status; schema validation and Fastify's own
 * client errors (malformed JSON, wrong content type, body too large) keep theirs; anything else is
 * a 500 whose details go to the log, never to the client.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | AppError | Error, request, reply) => {
    if (error instanceof AppError) {
      // A 500 is ours to fix: logged once, with what caused it and its stack. A 503 is load shed.
      if (error.code === 'INTERNAL') request.log.error({ err: error.cause ?? error }, error.message);
      else if (error.code === 'SERVER_BUSY') request.log.warn(error.message);
      reply.headers(error.headers);
      return send(reply, error.statusCode, error.message);
    }
    const fastifyError = error as FastifyError;
    if (fastifyError.validation) return send(reply, 400, fastifyError.message);
    const status = fastifyError.statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) return send(reply, status, fastifyError.message);
    request.log.error({ err: error }, 'unhandled error');
    return send(reply, 500, 'An internal error occurred');
  });

  app.setNotFoundHandler((request, reply) => {
    // A CORS preflight that reaches here was refused: its origin is not one a project allows.
    if (request.method === 'OPTIONS' && request.headers.origin !== undefined && request.headers['access-control-request-method'] !== undefined) {
      return send(reply, 403, `The origin ${request.headers.origin} may not call this API: a project admin can allow it (POST /projects/:id/cors), or set CORS_ORIGINS`);
    }
    return send(reply, 404, `Route ${request.method} ${request.url.split('?')[0]} not found`);
  });
}

/** Status of the errors Fastify's router raises before a route is found (see `frameworkErrors`). */
const FRAMEWORK_STATUS: Readonly<Record<string, number>> = { FST_ERR_BAD_URL: 400, FST_ERR_MAX_PARAM_LENGTH: 414 };

/**
 * Fastify's `frameworkErrors` option: the router's own refusals (a malformed URL, a path
 * parameter over maxParamLength) answer with the standard error body like every other error.
 */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const status = Object.hasOwn(FRAMEWORK_STATUS, error.code) ? FRAMEWORK_STATUS[error.code]! : 400;
  const message = status === 414 ? 'A path parameter is longer than the server accepts' : 'The URL is not valid (a malformed %-escape?)';
  void send(reply, status, message);
}
