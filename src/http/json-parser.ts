import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { BodyMemory } from './body-memory.ts';

/**
 * Fastify's JSON parser (with its prototype-poisoning protection), except that an empty body is
 * no body (clients often send `Content-Type: application/json` on a POST without one: publish),
 * and that a body is parsed only once the memory it takes is free (BodyMemory).
 */
export function registerJsonParser(app: FastifyInstance, memory: BodyMemory): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  // A parser is given the request only; what a body takes is given back with its reply.
  const replies = new WeakMap<FastifyRequest, FastifyReply>();
  app.addHook('preParsing', async (request, reply) => {
    replies.set(request, reply);
  });
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    let admitted: Promise<void> | undefined;
    try {
      admitted = memory.admit(text, replies.get(request)!);
    } catch (error) {
      done(error as Error, undefined);
      return;
    }
    if (admitted === undefined) parse(request, text, done);
    else admitted.then(() => parse(request, text, done), (error: Error) => done(error, undefined));
  });
}
