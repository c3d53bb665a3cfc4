import type { FastifyInstance } from 'fastify';

/**
 * REQUEST_IDLE_TIMEOUT_MS (Fastify's connectionTimeout, a socket's inactivity) is meant for a
 * client that stops sending its request. Once the request has arrived whole, the server may
 * work on it for longer without a byte either way (an import, a query up to its budget): from
 * then on the socket's timeout is off, until Node sets the keep-alive timeout after the response.
 */
export function registerRequestTimeouts(app: FastifyInstance): void {
  app.addHook('preHandler', async (request) => {
    const raw = request.raw;
    const clear = () => raw.socket?.setTimeout(0);
    // Bodies that routes read themselves (imports, uploads) are still arriving here.
    if (raw.complete) clear();
    else raw.once('end', clear);
  });
}
