import { randomUUID } from 'node:crypto';
import type { RawData, WebSocket } from 'ws';
import { AppError, badRequest, internalError } from '../errors.ts';
import { errorBody } from '../http/error-handler.ts';
import { FORBIDDEN_KEYS_MESSAGE, parseRequestJson } from '../json/request-json.ts';
import type { ProjectRecord } from '../store/index.ts';
import { EFFECT_FORMATS, listenOptions, WEBSOCKET_DEFAULTS, type GivenListenOptions } from './listen-options.ts';
import type { Listener } from './listener-registry.ts';
import type { AccessCheck, ListenSession, RealtimeService } from './realtime-service.ts';

/** Close codes (RFC 6455): 1008 policy violation, 1012 service restart. */
const POLICY_VIOLATION = 1008;
const SERVICE_RESTART = 1012;
/** A client that does not finish the closing handshake is cut off after this. */
const CLOSE_GRACE_MS = 5_000;
const SUBSCRIBE_FIELDS = new Set(['type', 'query', 'params', 'includeResult', 'includePreviousRevision', 'includeMutations', 'includeAllVersions', 'effectFormat', 'visibility', 'tag']);
const BOOLEAN_FIELDS = ['includeResult', 'includePreviousRevision', 'includeMutations', 'includeAllVersions'] as const;

export interface WebSocketContext {
  readonly project: ProjectRecord;
  readonly dataset: string;
  readonly access: AccessCheck;
  /** The upgrade request's logger: where an unexpected failure of a message is reported. */
  readonly log: { error(details: { err: unknown }, message: string): void };
}

type Message = Record<string, unknown>;

/**
 * One WebSocket on GET /data/listen/:dataset. The client sends JSON messages: `subscribe` (which
 * replaces any earlier subscription of the socket), `unsubscribe`, `ping`. The server answers
 * `welcome`, `unsubscribed`, `pong`, sends `mutation` events, and reports a bad message as an
 * `error` with the standard error fields, after which the socket stays usable. Messages are
 * handled one at a time, in order. The server pings every `heartbeatMs` and drops a peer that did
 * not answer the previous ping; a client that reads too slowly is closed with 1008.
 */
export class WebSocketSession implements ListenSession {
  readonly access: AccessCheck;
  private readonly socket: WebSocket;
  private readonly context: WebSocketContext;
  private readonly realtime: RealtimeService;
  private listener: Listener | undefined;
  private queue: Promise<void> = Promise.resolve();
  private heartbeat: NodeJS.Timeout | undefined;
  private alive = true;
  private closing = false;

  constructor(socket: WebSocket, context: WebSocketContext, realtime: RealtimeService) {
    this.socket = socket;
    this.context = context;
    this.access = context.access;
    this.realtime = realtime;
    const released = realtime.webSocketOpened();
    const detach = realtime.attach(this);
    socket.on('message', (data, isBinary) => {
      this.queue = this.queue.then(() => this.receive(data, isBinary));
    });
    socket.on('pong', () => {
      this.alive = true;
    });
    socket.on('close', () => {
      this.closing = true;
      clearTimeout(this.heartbeat);
      this.dropSubscription();
      detach();
      released();
    });
    this.scheduleHeartbeat();
  }

  revoke(error: AppError): void {
    this.send(this.errorMessage(error));
    this.close(POLICY_VIOLATION, `access ended: ${error.message}`);
  }

  shutdown(): void {
    this.send(JSON.stringify({ type: 'reconnect', reason: 'The server is restarting: reconnect' }));
    this.close(SERVICE_RESTART, 'server restarting: reconnect');
  }

  private async receive(data: RawData, isBinary: boolean): Promise<void> {
    if (this.closing) return;
    try {
      const message = parseMessage(data, isBinary);
      switch (message.type) {
        case 'subscribe':
          return await this.subscribe(message);
        case 'unsubscribe': {
          const listenerId = this.dropSubscription();
          return this.send(JSON.stringify({ type: 'unsubscribed', ...(listenerId ? { listenerId } : {}) }));
        }
        case 'ping':
          return this.send(JSON.stringify({ type: 'pong' }));
        default:
          throw badRequest(`Unknown message type ${JSON.stringify(message.type)}: expected subscribe, unsubscribe or ping`);
      }
    } catch (error) {
      const known = error instanceof AppError ? error : internalError('An internal error occurred', error);
      if (known.statusCode >= 500) this.context.log.error({ err: known.cause ?? known }, known.message);
      this.send(this.errorMessage(known));
    }
  }

  private async subscribe(message: Message): Promise<void> {
    const unknown = Object.keys(message).find((field) => !SUBSCRIBE_FIELDS.has(field));
    if (unknown !== undefined) throw badRequest(`subscribe has an unknown property "${unknown}"`);
    const { query, params = {} } = message;
    if (typeof query !== 'string' || query.length === 0) throw badRequest('subscribe must have a "query": a GROQ filter such as *[_type == "post"]');
    if (typeof params !== 'object' || params === null || Array.isArray(params)) throw badRequest('subscribe "params" must be an object');
    for (const field of BOOLEAN_FIELDS) {
      if (message[field] !== undefined && typeof message[field] !== 'boolean') throw badRequest(`subscribe "${field}" must be true or false`);
    }
    if (message.visibility !== undefined && message.visibility !== 'transaction' && message.visibility !== 'query') {
      throw badRequest('subscribe "visibility" must be "transaction" or "query"');
    }
    if (message.effectFormat !== undefined && !EFFECT_FORMATS.includes(message.effectFormat as 'mendoza')) {
      throw badRequest(`subscribe "effectFormat" must be ${EFFECT_FORMATS.map((format) => `"${format}"`).join(' or ')}`);
    }
    const { project, dataset } = this.context;
    const filter = await this.realtime.compileFilter(query, params as Record<string, unknown>, project, dataset);
    const options = listenOptions(message as GivenListenOptions, WEBSOCKET_DEFAULTS);
    const listenerId = randomUUID();
    const listener: Listener = {
      id: listenerId,
      projectId: project.id,
      dataset,
      filter,
      options,
      deliver: (event) => this.deliver(event.webSocketMessage),
      dismiss: (reason) => {
        this.send(this.errorMessage(badRequest(reason.message)));
        this.close(POLICY_VIOLATION, reason.message);
      },
    };
    this.dropSubscription();
    await this.realtime.subscribe(listener);
    if (this.closing) {
      this.realtime.unsubscribe(listener);
      return;
    }
    this.listener = listener;
    this.send(JSON.stringify({ type: 'welcome', listenerId, listenerName: listenerId }));
  }

  /** Ends the current subscription; resolves to its id. */
  private dropSubscription(): string | undefined {
    const listener = this.listener;
    if (!listener) return undefined;
    this.realtime.unsubscribe(listener);
    this.listener = undefined;
    return listener.id;
  }

  private deliver(text: string): void {
    this.send(text);
    const limit = this.realtime.settings.maxBufferedBytes;
    if (!this.closing && this.socket.bufferedAmount > limit) {
      this.close(POLICY_VIOLATION, `slow consumer: more than ${limit} bytes unsent`);
    }
  }

  private send(text: string): void {
    if (!this.closing) this.socket.send(text);
  }

  private errorMessage(error: AppError): string {
    return JSON.stringify({ type: 'error', ...errorBody(error.statusCode, error.message) });
  }

  /** Stops sending, starts the closing handshake, and cuts the connection if the client does not answer it. */
  private close(code: number, reason: string): void {
    if (this.closing) return;
    this.closing = true;
    clearTimeout(this.heartbeat);
    this.dropSubscription();
    this.socket.close(code, closeReason(reason));
    setTimeout(() => this.socket.terminate(), CLOSE_GRACE_MS).unref();
  }

  private scheduleHeartbeat(): void {
    this.heartbeat = setTimeout(() => {
      if (this.closing) return;
      // No pong since the last ping: the peer or the path to it is gone.
      if (!this.alive) {
        this.socket.terminate();
        return;
      }
      this.alive = false;
      this.socket.ping();
      this.scheduleHeartbeat();
    }, this.realtime.settings.heartbeatMs);
    this.heartbeat.unref();
  }
}

function parseMessage(data: RawData, isBinary: boolean): Message {
  if (isBinary) throw badRequest('Messages must be JSON text, not binary');
  let message: unknown;
  try {
    message = parseRequestJson(Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]).toString('utf8'));
  } catch (error) {
    if (error instanceof SyntaxError && error.message === FORBIDDEN_KEYS_MESSAGE) throw badRequest(`Messages: ${FORBIDDEN_KEYS_MESSAGE}`);
    throw badRequest('Messages must be JSON objects such as {"type": "subscribe", "query": "*[_type == \\"post\\"]"}');
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) throw badRequest('Messages must be JSON objects with a "type"');
  if (typeof (message as Message).type !== 'string') throw badRequest('Messages must have a "type": subscribe, unsubscribe or ping');
  return message as Message;
}

/** A close reason fits in 123 bytes of UTF-8. */
export function closeReason(reason: string): string {
  let text = reason;
  while (Buffer.byteLength(text) > 123) text = text.slice(0, -1);
  return text;
}
