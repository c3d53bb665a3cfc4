import type { FastifyInstance, FastifyReply, FastifyRequest, preParsingHookHandler } from 'fastify';
import type { BodyMemory } from './body-memory.ts';
import { internalError } from '../errors.ts';

/** Methods Fastify reads no body for. */
const BODYLESS = new Set(['GET', 'HEAD', 'TRACE']);

/**
 * Fastify's JSON parser (with its prototype-poisoning protection), except that an empty body is
 * no body (clients often send `Content-Type: application/json` on a POST without one: publish),
 * as is the body of a request to no route, and that a body is parsed only once the memory it
 * takes is free (BodyMemory).
 */
export function registerJsonParser(app: FastifyInstance, memory: BodyMemory): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  // A parser is given the request only; what a body takes is given back with its reply. Routes
  // that take no body (most requests are GETs) are left without the hook.
  const replies = new WeakMap<FastifyRequest, FastifyReply>();
  const remember: preParsingHookHandler = (request, reply, payload, done) => {
    replies.set(request, reply);
    done(null, payload);
  };
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (methods.every((method) => BODYLESS.has(method))) return;
    const own = route.preParsing === undefined ? [] : Array.isArray(route.preParsing) ? route.preParsing : [route.preParsing];
    route.preParsing = [...own, remember];
  });
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    // A route that does not exist is answered 404 without its body: nothing reads it.
    if (text.trim() === '' || request.is404) {
      done(null, undefined);
      return;
    }
    const reply = replies.get(request);
    if (!reply) {
      done(internalError('The request body could not be read', new Error(`BUG: no reply known for ${request.method} ${request.routeOptions.url ?? request.url}`)), undefined);
      return;
    }
    let admitted: Promise<void> | undefined;
    try {
      admitted = memory.admit(text, reply);
    } catch (error) {
      done(error as Error, undefined);
      return;
    }
    if (admitted === undefined) parse(request, text, done);
    else admitted.then(() => parse(request, text, done), (error: Error) => done(error, undefined));
  });
}
