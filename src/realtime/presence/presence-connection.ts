import { randomBytes } from 'node:crypto';
import type { RawData, WebSocket } from 'ws';
import { callerKey } from '../../access/principal.ts';
import { AppError } from '../../errors.ts';
import type { AccessCheck, ListenSession } from '../realtime-service.ts';
import { closeReason } from '../websocket-session.ts';
import { errorFrame, parseRequest, resultFrame, RPC_ERRORS, RpcError, subscriptionFrame, type RequestId, type RpcRequest } from './json-rpc.ts';
import { MessageBudget } from './message-budget.ts';
import { announcement, sessionIdParam } from './presence-params.ts';
import type { PresenceMember, PresenceService } from './presence-service.ts';

/** Close codes: RFC 6455's, and 4000 + an HTTP status for a refusal (bifur-client's convention). */
const CLOSE = { POLICY_VIOLATION: 1008, MESSAGE_TOO_BIG: 1009, INTERNAL_ERROR: 1011, SERVICE_RESTART: 1012, TRY_AGAIN_LATER: 1013 } as const;
const REFUSAL_BASE = 4000;
const REFUSED_STATUSES = new Set([400, 401, 403, 404, 429]);
/** A client that does not finish the closing handshake is cut off after this. */
const CLOSE_GRACE_MS = 5_000;
const HEARTBEAT = '♥';
const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** Until a connection authorizes itself there is nothing to check again. */
const NOTHING_TO_CHECK: AccessCheck = { key: 'presence:unauthorized', verify: async () => undefined };

export interface PresenceConnectionContext {
  readonly dataset: string;
  /** The project the URL names (`/api/p/<project>/...`, X-Project, `?project=`), if any. */
  readonly namedProject: string | undefined;
  /** The upgrade request's logger: where an unexpected failure of a message is reported. */
  readonly log: { error(details: { err: unknown }, message: string): void };
}

/**
 * Where presence connections are counted (GET /health `connections`), checked again every minute
 * and told to reconnect when the server stops: the real-time service, as for listeners.
 */
export interface ConnectionTracker {
  attach(session: ListenSession): () => void;
  webSocketOpened(): () => void;
  /** Takes one of the caller's listener slots (429 when it holds them all); the returned function gives it back. */
  reserveListener(caller: string): () => void;
}

/** The connection must end: the client gets `code` as an error and as the close code. */
class Refusal extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.code = code;
  }
}

type Handled = { result: unknown; afterReply?: () => void };

/**
 * One WebSocket on /socket/:dataset, speaking @sanity/bifur-client's JSON-RPC: `authorization`
 * first (browsers cannot send headers on a WebSocket), then `presence_subscribe` (results arrive as
 * `presence_subscription` messages), `presence_unsubscribe`, `presence_announce`,
 * `presence_rollcall`, `presence_disconnect`. Requests are handled one at a time, in order. The
 * server sends `♥` every `heartbeatMs`. A refusal (no or a bad credential, no access) is an error
 * reply and a close with 4000 + the HTTP status; a bad request only an error reply.
 */
export class PresenceConnection implements ListenSession {
  private readonly socket: WebSocket;
  private readonly context: PresenceConnectionContext;
  private readonly presence: PresenceService;
  private readonly tracker: ConnectionTracker;
  private readonly connectionId: string;
  private readonly budget: MessageBudget;
  private readonly subscriptions = new Map<string, () => void>();
  /** The session ids this connection announced: they end with it. */
  private readonly sessions = new Set<string>();
  private readonly releases: (() => void)[] = [];
  private member: PresenceMember | undefined;
  private check: AccessCheck = NOTHING_TO_CHECK;
  private queue: Promise<void> = Promise.resolve();
  private refusedInARow = 0;
  private authorizationTimer: NodeJS.Timeout | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private alive = true;
  private closing = false;

  constructor(socket: WebSocket, context: PresenceConnectionContext, presence: PresenceService, tracker: ConnectionTracker) {
    this.socket = socket;
    this.context = context;
    this.presence = presence;
    this.tracker = tracker;
    this.budget = new MessageBudget(presence.settings);
    const opened = presence.connectionOpened();
    this.connectionId = opened?.connectionId ?? 'refused';
    socket.on('close', () => this.cleanUp());
    if (!opened) {
      this.close(CLOSE.TRY_AGAIN_LATER, 'too many presence connections on this server: try again later');
      return;
    }
    this.releases.push(opened.release, tracker.webSocketOpened(), tracker.attach(this));
    socket.on('message', (data, isBinary) => this.onFrame(data, isBinary));
    socket.on('pong', () => {
      this.alive = true;
    });
    this.authorizationTimer = setTimeout(() => {
      const seconds = presence.settings.authorizationTimeoutMs / 1000;
      this.refuse(new Refusal(refusalCode(401), `Unauthorized: no "authorization" request within ${seconds} s`), null);
    }, presence.settings.authorizationTimeoutMs);
    this.authorizationTimer.unref();
    this.scheduleHeartbeat();
  }

  get access(): AccessCheck {
    return this.check;
  }

  revoke(error: AppError): void {
    this.refuse(new Refusal(refusalCode(error.statusCode), `access ended: ${error.message}`), null);
  }

  shutdown(): void {
    this.close(CLOSE.SERVICE_RESTART, 'server restarting: reconnect');
  }

  /** Checks size and rate as frames arrive, and queues what passes. */
  private onFrame(data: RawData, isBinary: boolean): void {
    if (this.closing) return;
    const { maxMessageBytes, messageBurst } = this.presence.settings;
    if (byteLengthOf(data) > maxMessageBytes) {
      this.close(CLOSE.MESSAGE_TOO_BIG, `message too big: at most ${maxMessageBytes} bytes`);
      return;
    }
    const text = textOf(data);
    if (!this.budget.take()) {
      // A client that keeps sending after it was told is not a client we can help.
      if (++this.refusedInARow > messageBurst) {
        this.close(CLOSE.POLICY_VIOLATION, 'too many messages');
        return;
      }
      const { messagesPerSecond } = this.presence.settings;
      this.send(errorFrame(idIn(text), RPC_ERRORS.RATE_LIMITED, `Too many messages: at most ${messagesPerSecond} a second`));
      return;
    }
    this.refusedInARow = 0;
    this.queue = this.queue.then(() => this.receive(text, isBinary));
  }

  private async receive(text: string, isBinary: boolean): Promise<void> {
    if (this.closing) return;
    let request: RpcRequest;
    try {
      if (isBinary) throw new RpcError(RPC_ERRORS.INVALID_REQUEST, 'Invalid request: messages are JSON text, not binary');
      request = parseRequest(text);
    } catch (error) {
      if (error instanceof RpcError) this.send(errorFrame(error.id, error.code, error.message));
      return;
    }
    const id = request.id;
    try {
      const handled = await this.handle(request);
      if (this.closing) return;
      if (id !== undefined) this.send(resultFrame(id, handled.result));
      handled.afterReply?.();
    } catch (error) {
      if (error instanceof Refusal) this.refuse(error, id ?? null);
      else if (error instanceof RpcError) this.reply(id, errorFrame(id ?? null, error.code, error.message));
      else {
        this.context.log.error({ err: error }, `presence request ${request.method} failed`);
        this.reply(id, errorFrame(id ?? null, RPC_ERRORS.INTERNAL_ERROR, 'Internal error'));
      }
    }
  }

  private async handle({ method, params }: RpcRequest): Promise<Handled> {
    if (method === 'authorization') return this.authorize(params);
    const member = this.member;
    if (!member) throw new Refusal(refusalCode(401), 'Unauthorized: send {"method": "authorization", "params": {"authorization": "Bearer <token>"}} first');
    switch (method) {
      case 'presence_subscribe':
        return this.subscribe(member);
      case 'presence_unsubscribe': {
        const subscriptionId = params.subscriptionId;
        const unsubscribe = typeof subscriptionId === 'string' ? this.subscriptions.get(subscriptionId) : undefined;
        if (!unsubscribe) throw new RpcError(RPC_ERRORS.INVALID_PARAMS, 'Subscription not found');
        unsubscribe();
        this.subscriptions.delete(subscriptionId as string);
        return { result: true };
      }
      case 'presence_announce': {
        const { sessionId, locations } = announcement(params, this.presence.settings);
        const { maxSessionsPerConnection } = this.presence.settings;
        if (!this.sessions.has(sessionId) && this.sessions.size >= maxSessionsPerConnection) {
          throw new RpcError(RPC_ERRORS.INVALID_PARAMS, `Invalid params: at most ${maxSessionsPerConnection} session ids per connection`);
        }
        this.presence.announce(member, sessionId, locations);
        this.sessions.add(sessionId);
        return { result: true };
      }
      case 'presence_rollcall':
        this.presence.rollCall(member, sessionIdParam(params.session, 'session'));
        return { result: true };
      case 'presence_disconnect': {
        const sessionId = sessionIdParam(params.session, 'session');
        if (this.sessions.delete(sessionId)) this.presence.disconnect(member, sessionId);
        return { result: true };
      }
      default:
        throw new RpcError(RPC_ERRORS.METHOD_NOT_FOUND, `Method not found: ${JSON.stringify(method).slice(0, 80)}`);
    }
  }

  private async authorize(params: Record<string, unknown>): Promise<Handled> {
    const header = params.authorization;
    const credential = typeof header === 'string' ? BEARER.exec(header)?.[1] : undefined;
    if (credential === undefined) throw new Refusal(refusalCode(401), 'Unauthorized: "authorization" must be "Bearer <token>"');
    let access;
    try {
      access = await this.presence.authorize(credential, this.context.dataset, this.context.namedProject);
      // An authorized connection is one of its caller's listeners (LISTENERS_PER_CALLER), held until it closes.
      if (!this.member && !this.closing) this.releases.push(this.tracker.reserveListener(callerKey(access.principal)));
    } catch (error) {
      if (error instanceof AppError && REFUSED_STATUSES.has(error.statusCode)) throw new Refusal(refusalCode(error.statusCode), error.message);
      throw error;
    }
    const member = this.member;
    if (member && (member.userId !== access.userId || member.projectId !== access.project.id)) {
      // Sessions were announced as the first identity: a connection is one editor's.
      throw new Refusal(refusalCode(401), 'Unauthorized: this connection is authorized as someone else; open a new one');
    }
    this.member ??= { connectionId: this.connectionId, projectId: access.project.id, dataset: this.context.dataset, userId: access.userId };
    this.check = access.access;
    clearTimeout(this.authorizationTimer);
    return { result: true };
  }

  private subscribe(member: PresenceMember): Handled {
    const { maxSubscriptionsPerConnection } = this.presence.settings;
    if (this.subscriptions.size >= maxSubscriptionsPerConnection) {
      throw new RpcError(RPC_ERRORS.INVALID_PARAMS, `Invalid params: at most ${maxSubscriptionsPerConnection} subscriptions per connection`);
    }
    const subscriptionId = randomBytes(12).toString('base64url');
    const deliver = (resultJson: string) => this.deliver(subscriptionFrame('presence_subscription', subscriptionId, resultJson));
    const { current, unsubscribe } = this.presence.subscribe(member, { connectionId: this.connectionId, deliver });
    this.subscriptions.set(subscriptionId, unsubscribe);
    // The states known now follow the reply: the client listens for its subscription id only once it has it.
    return { result: subscriptionId, afterReply: () => current.forEach(deliver) };
  }

  private refuse(refusal: Refusal, id: RequestId): void {
    this.send(errorFrame(id, refusal.code, refusal.message));
    this.close(refusal.code, refusal.message);
  }

  /** Replies only to requests: JSON-RPC notifications (no id) get no answer, errors included. */
  private reply(id: RequestId | undefined, frame: string): void {
    if (id !== undefined) this.send(frame);
  }

  private deliver(frame: string): void {
    this.send(frame);
    const limit = this.presence.settings.maxBufferedBytes;
    if (!this.closing && this.socket.bufferedAmount > limit) this.close(CLOSE.POLICY_VIOLATION, `slow consumer: more than ${limit} bytes unsent`);
  }

  private send(frame: string): void {
    if (!this.closing) this.socket.send(frame);
  }

  /** Stops sending, ends the connection's sessions, and closes (cutting it off if the client does not finish closing). */
  private close(code: number, reason: string): void {
    if (this.closing) return;
    this.cleanUp();
    this.socket.close(code, closeReason(reason));
    setTimeout(() => this.socket.terminate(), CLOSE_GRACE_MS).unref();
  }

  /** Once, whichever comes first: our close or the socket's. */
  private cleanUp(): void {
    if (this.closing) return;
    this.closing = true;
    clearTimeout(this.authorizationTimer);
    clearTimeout(this.heartbeatTimer);
    for (const unsubscribe of this.subscriptions.values()) unsubscribe();
    this.subscriptions.clear();
    const member = this.member;
    if (member) for (const sessionId of this.sessions) this.presence.disconnect(member, sessionId);
    this.sessions.clear();
    for (const release of this.releases) release();
    this.releases.length = 0;
  }

  private scheduleHeartbeat(): void {
    this.heartbeatTimer = setTimeout(() => {
      if (this.closing) return;
      // No pong since the last ping: the peer or the path to it is gone.
      if (!this.alive) {
        this.socket.terminate();
        return;
      }
      this.alive = false;
      this.send(HEARTBEAT);
      this.socket.ping();
      this.scheduleHeartbeat();
    }, this.presence.settings.heartbeatMs);
    this.heartbeatTimer.unref();
  }
}

/** The close code of a refusal with an HTTP status (400, 401, 403, 404, 429): 4000, 4001, 4003, 4004, 4029. */
function refusalCode(status: number): number {
  return REFUSAL_BASE + (REFUSED_STATUSES.has(status) ? status : 401) - 400;
}

function byteLengthOf(data: RawData): number {
  return Array.isArray(data) ? data.reduce((sum, chunk) => sum + chunk.length, 0) : data.byteLength;
}

function textOf(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  return Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]).toString('utf8');
}

/** The id of a request refused before it was handled, so the client's call ends. */
function idIn(text: string): RequestId {
  try {
    return parseRequest(text).id ?? null;
  } catch (error) {
    return error instanceof RpcError ? error.id : null;
  }
}
