import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
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

  app.setNotFoundHandler((request, reply) => send(reply, 404, `Route ${request.method} ${request.url.split('?')[0]} not found`));
}
