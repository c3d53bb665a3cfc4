import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../services.ts';
import { badRequest } from '../errors.ts';
import { namedProject } from '../http/data-project.ts';
import { errorResponses } from '../http/schemas.ts';
import { PresenceConnection } from '../realtime/presence/presence-connection.ts';
import { datasetParams, projectQuery } from './data/schemas.ts';

const DESCRIPTION = `Presence for Sanity Studio (who else has a document open), as a **WebSocket** speaking the JSON-RPC 2.0 of
\`@sanity/bifur-client\`: Studio connects to \`<apiHost>/v2022-06-30/socket/<dataset>\`. The upgrade needs no credential:
the first request is \`{"jsonrpc": "2.0", "method": "authorization", "params": {"authorization": "Bearer <token>"}, "id": "1"}\`
(a session, access token or API token; it needs what reading the dataset needs). Then \`presence_subscribe\` (the result is a
subscription id; events arrive as \`{"method": "presence_subscription", "params": {"subscription", "result"}}\` with
\`result\` one of \`{"type": "state", "i": <user id>, "m": {"sessionId", "locations"}}\`, \`{"type": "rollCall", "i",
"session"}\`, \`{"type": "disconnect", "i", "m": {"session"}}\`; the states known at the time follow the reply),
\`presence_announce\` (\`{"data": {"sessionId", "locations"}}\`), \`presence_rollcall\` (\`{"session"}\`: the others announce
again), \`presence_disconnect\` (\`{"session"}\`) and \`presence_unsubscribe\` (\`{"subscriptionId"}\`). Presence is shared by
everyone on the project and dataset, on every instance. A session not announced within 90 s, or whose connection ends,
disconnects. The server sends the text frame \`♥\` every 25 s. A refused credential or access is an error reply with code
4001, 4003 or 4004 (4029: the caller holds all its LISTENERS_PER_CALLER) and a close with the same code; other mistakes are JSON-RPC error replies (-32700, -32600, -32601,
-32602; -32029 for more than 10 messages a second). Frames over 16 KiB close the connection (1009).`;

/** GET /socket/:dataset: Studio's presence WebSocket. Credentials come in the first message, not the upgrade. */
export const presenceSocketRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  app.route<{ Params: { dataset: string }; Querystring: { project?: string; tag?: string } }>({
    method: 'GET',
    url: '/socket/:dataset',
    exposeHeadRoute: false,
    // Browsers cannot send Authorization on a WebSocket: the connection authorizes itself in its first message.
    config: { access: 'public' },
    schema: {
      tags: ['documents'],
      summary: 'Presence (Sanity Studio): a WebSocket',
      description: DESCRIPTION,
      params: datasetParams,
      querystring: {
        type: 'object',
        properties: { tag: { type: 'string', description: 'Accepted for Sanity clients; not used' }, ...projectQuery },
      },
      response: errorResponses(400),
    },
    handler: async () => {
      throw badRequest('This is a WebSocket endpoint: connect with an upgrade request');
    },
    wsHandler: (socket, request) => {
      const context = { dataset: request.params.dataset, namedProject: namedProject(request), log: request.log };
      new PresenceConnection(socket, context, services.presence, services.realtime);
    },
  });
};
