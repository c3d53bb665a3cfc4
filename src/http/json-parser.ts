import type { FastifyInstance } from 'fastify';

/**
 * Fastify's JSON parser (with its prototype-poisoning protection), except that an empty body is
 * no body: clients often send `Content-Type: application/json` on a POST without one (publish).
 */
export function registerJsonParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    parse(request, text, done);
  });
}
