import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { Services } from '../../services.ts';
import { badRequest } from '../../errors.ts';
import { callerOf, credentialOf, principalOf } from '../../http/request-context.ts';
import { namedProject } from '../../http/data-project.ts';
import { parametersFromQueryString } from '../../http/query-parameters.ts';
import { resolveDataProject } from '../../projects/data-project-resolver.ts';
import { bearerSecurity, errorResponses } from '../../http/schemas.ts';
import { MAX_LISTEN_QUERY_LENGTH } from '../../realtime/listen-filter.ts';
import { EFFECT_FORMATS, listenOptions, SSE_DEFAULTS } from '../../realtime/listen-options.ts';
import type { AccessCheck } from '../../realtime/realtime-service.ts';
import { ServerSentEventsSession, type ServerSentEventsContext } from '../../realtime/sse-session.ts';
import { WebSocketSession, type WebSocketContext } from '../../realtime/websocket-session.ts';
import { datasetParams, projectQuery } from './schemas.ts';

interface ListenQuery {
  query?: string;
  includeResult?: boolean;
  includePreviousRevision?: boolean;
  includeMutations?: boolean;
  effectFormat?: string;
  [name: string]: unknown;
}

type ListenRequest = FastifyRequest<{ Params: { dataset: string }; Querystring: ListenQuery }>;

const DESCRIPTION = `Real-time changes of the documents a GROQ filter matches, as a **WebSocket** (an upgrade request) or
as **Server-Sent Events** (any other GET, e.g. with \`Accept: text/event-stream\`). Credentials: \`Authorization: Bearer\`
or, for browsers, the query parameter \`access_token\`. Listening needs what querying the dataset needs (viewer; an
API token of the project and dataset). The filter is judged on each document before and after each committed
change; every match gives one event, in commit order. Listeners see drafts and published documents alike, as queries do.
One user, token or address holds at most \`LISTENERS_PER_CALLER\` listeners open at once on an instance (default 200):
one more is refused with 429. A filter that computes for longer than \`QUERY_SLICE_MS\` on one changed document closes its
listeners with a 400 error message saying so.

**WebSocket** messages are JSON. Send \`{"type": "subscribe", "query": "*[_type == 'post']", "params": {},
"includeResult": true}\` (also \`includePreviousRevision\`, \`includeMutations\`, \`effectFormat: "mendoza"\`; a new
subscribe replaces the previous one); the server answers \`{"type": "welcome", "listenerId"}\`, then sends \`{"type":
"mutation", "eventId", "documentId", "transition": "appear" | "update" | "disappear", "transactionId", "timestamp",
"identity", "previousRev"?, "resultRev", "visibility", "transactionTotalEvents", "transactionCurrentEvent", "result"?,
"previous"?, "mutations"?, "effects"?}\`. \`resultRev\` is the document's new \`_rev\` (the transaction id when it was
deleted); \`previousRev\` is left out when it did not exist; \`timestamp\` is the document's \`_updatedAt\`;
\`transactionTotalEvents\` counts the events of the transaction this listener gets and \`transactionCurrentEvent\` is
this one's place among them, from 0; \`mutations\` are the mutations the transaction applied to the document as
they were sent (a createOrReplace or delete for publish, unpublish, restore and import). \`{"type": "unsubscribe"}\` and
\`{"type": "ping"}\` (answered \`pong\`) are also understood. A bad message is answered \`{"type": "error",
"statusCode", "error", "message"}\` and the socket stays usable. The server pings every 25 s; a client that reads
too slowly is closed with code 1008 and the reason; when the server stops it sends \`{"type": "reconnect"}\` and
closes with 1012.

**Server-Sent Events** follow Sanity's listen API: \`query\`, parameters as \`$name=<JSON>\`, \`includeResult\`,
\`includePreviousRevision\`, \`includeMutations\` (default true), \`effectFormat=mendoza\`. Events: \`welcome\` (\`{"listenerName"}\`),
\`mutation\` (the fields above; the SSE id is the event id), \`reconnect\` (the server stops: reconnect),
\`disconnect\` (\`{"reason"}\`: access revoked or too slow), and \`:\` comments as keep-alives.`;

const booleanOption = (description: string) => ({ type: 'boolean', description }) as const;

/** GET /data/listen/:dataset: the route, its access check and the choice of transport. */
export const listenRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  const { realtime } = services;
  const contexts = new WeakMap<FastifyRequest, WebSocketContext | ServerSentEventsContext>();

  app.route<{ Params: { dataset: string }; Querystring: ListenQuery }>({
    method: 'GET',
    url: '/data/listen/:dataset',
    // A HEAD request can neither be upgraded nor carry a stream.
    exposeHeadRoute: false,
    config: { queryToken: true },
    schema: {
      tags: ['documents'],
      summary: 'Listen to document changes (WebSocket or Server-Sent Events)',
      description: DESCRIPTION,
      security: bearerSecurity,
      params: datasetParams,
      querystring: {
        type: 'object',
        properties: {
          query: { type: 'string', minLength: 1, maxLength: MAX_LISTEN_QUERY_LENGTH, description: 'SSE: the GROQ filter, e.g. *[_type == "post"]' },
          includeResult: booleanOption('SSE: include the document after the change as `result` (default false)'),
          includePreviousRevision: booleanOption('SSE: include the document before the change as `previous` (default false)'),
          includeMutations: booleanOption('SSE: include the change as `mutations` (default true)'),
          effectFormat: { type: 'string', enum: [...EFFECT_FORMATS], description: 'Include the change as mendoza patches `effects: {apply, revert}` (on documents without `_rev`)' },
          includeAllVersions: booleanOption('Accepted for Sanity clients: drafts are always included'),
          enableResume: booleanOption('Accepted for Sanity clients: events are not replayed, so a reconnect gets `welcome`'),
          lastEventId: { type: 'string', description: 'Accepted for EventSource reconnects (as is the Last-Event-ID header); events are not replayed' },
          visibility: { type: 'string', enum: ['transaction', 'query'], description: 'Accepted for Sanity clients: events are sent once queries see the change' },
          tag: { type: 'string', description: 'Accepted for Sanity clients; not used' },
          access_token: { type: 'string', description: 'The credential, for browsers (WebSocket and EventSource cannot set headers)' },
          ...projectQuery,
        },
        additionalProperties: { description: 'SSE: `$name` query parameters as JSON' },
      },
      response: {
        200: { description: 'Server-Sent Events', content: { 'text/event-stream': { schema: { type: 'string' } } } },
        ...errorResponses(400, 401, 403, 404),
      },
    },
    preHandler: async (request: ListenRequest, reply) => {
      const { dataset } = request.params;
      const project = await resolveDataProject(services.projects, principalOf(request), dataset, namedProject(request));
      realtime.authorize(principalOf(request), project, dataset);
      const access = accessCheck(services, credentialOf(request) ?? '', project.id, dataset);
      if (request.ws) {
        holdSlotWhileOpen(request.raw.socket, realtime.reserveListener(callerOf(request)));
        contexts.set(request, { project, dataset, access, log: request.log });
        return;
      }
      const { query } = request.query;
      if (query === undefined) throw badRequest('querystring must have the property "query" (a GROQ filter such as *[_type == "post"])');
      const filter = await realtime.compileFilter(query, parametersFromQueryString(request.query), project, dataset);
      holdSlotWhileOpen(reply.raw, realtime.reserveListener(callerOf(request)));
      contexts.set(request, { project, dataset, access, filter, options: listenOptions(request.query, SSE_DEFAULTS) });
    },
    handler: async (request, reply) => {
      const context = contexts.get(request) as ServerSentEventsContext;
      reply.hijack();
      await new ServerSentEventsSession(reply.raw, context, realtime).open(reply.getHeaders());
    },
    wsHandler: (socket, request) => {
      new WebSocketSession(socket, contexts.get(request) as WebSocketContext, realtime);
    },
  });
};

/**
 * Gives a listener slot back when the connection ends: an upgraded socket (a WebSocket's own) or
 * the event stream's response, however it ends (the client leaves, the server closes it, or the
 * request fails before the stream starts).
 */
function holdSlotWhileOpen(connection: { readonly destroyed: boolean; once(event: 'close', listener: () => void): unknown }, release: () => void): void {
  if (connection.destroyed) release();
  else connection.once('close', release);
}

/** Checks the credential again, with the project fixed to the one the connection was opened on. */
function accessCheck(services: Services, credential: string, projectId: string, dataset: string): AccessCheck {
  return {
    key: `${credential}\u0000${projectId}\u0000${dataset}`,
    async verify() {
      const principal = await services.auth.authenticate(credential);
      const project = await resolveDataProject(services.projects, principal, dataset, projectId);
      services.realtime.authorize(principal, project, dataset);
    },
  };
}

