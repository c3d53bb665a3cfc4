import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/**
 * One log line per request, written when it is answered: its id, method, URL (credentials masked)
 * and client address, the status and the time taken. Fastify's default also writes a line when a
 * request arrives, at the default level (`info`) too, which says nothing the second line does not
 * and costs every request as much again; that line is kept at `debug`. A request that failed after
 * its answer began is logged as an error with its cause.
 */
export class RequestLog extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}
