import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { AppError } from '../errors.ts';
import { errorBody } from '../http/error-handler.ts';
import type { ProjectRecord } from '../store/index.ts';
import type { ListenFilter } from './listen-filter.ts';
import type { ListenOptions } from './listen-options.ts';
import type { Listener } from './listener-registry.ts';
import type { AccessCheck, ListenSession, RealtimeService } from './realtime-service.ts';

/** A client that does not close a finished stream is cut off after this. */
const CLOSE_GRACE_MS = 5_000;
/** What EventSource clients wait before reconnecting after the stream ends (`retry:`). */
const RECONNECT_DELAY_MS = 1_000;

export interface ServerSentEventsContext {
  readonly project: ProjectRecord;
  readonly dataset: string;
  readonly access: AccessCheck;
  readonly filter: ListenFilter;
  readonly options: ListenOptions;
}

/**
 * One Server-Sent Events stream on GET /data/listen/:dataset, in the shape of Sanity's listen
 * API so that its clients work unchanged: `welcome` with the listener's name, `mutation` events
 * whose SSE id is the event id, `:` comments as keep-alives, `reconnect` when the server stops
 * (the stream then ends and EventSource reconnects), `disconnect` with a reason when the client
 * must not come back as it is (access revoked, reading too slowly).
 */
export class ServerSentEventsSession implements ListenSession {
  readonly access: AccessCheck;
  private readonly response: ServerResponse;
  private readonly context: ServerSentEventsContext;
  private readonly realtime: RealtimeService;
  private readonly listener: Listener;
  private heartbeat: NodeJS.Timeout | undefined;
  private closing = false;

  constructor(response: ServerResponse, context: ServerSentEventsContext, realtime: RealtimeService) {
    this.response = response;
    this.context = context;
    this.access = context.access;
    this.realtime = realtime;
    this.listener = {
      id: randomUUID(),
      projectId: context.project.id,
      dataset: context.dataset,
      filter: context.filter,
      options: context.options,
      deliver: (event) => this.deliver(event.serverSentEvent),
      dismiss: (reason) => this.end(event('disconnect', { reason: reason.message, ...errorBody(400, reason.message) })),
    };
  }

  /** Sends the headers, subscribes, then says welcome: every change committed after it is sent. */
  async open(headers: Record<string, string | number | string[] | undefined>): Promise<void> {
    const { response } = this;
    const detach = this.realtime.attach(this);
    response.on('close', () => {
      this.closing = true;
      clearTimeout(this.heartbeat);
      this.realtime.unsubscribe(this.listener);
      detach();
    });
    response.writeHead(200, {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      // HTTP/2 forbids connection headers (Node drops them with a warning): HTTP/1.1 only.
      ...(response.req.httpVersionMajor === 1 ? { connection: 'keep-alive' } : {}),
      // Proxies such as nginx would otherwise hold events back in their buffers.
      'x-accel-buffering': 'no',
    });
    this.write(`retry: ${RECONNECT_DELAY_MS}\n\n`);
    try {
      await this.realtime.subscribe(this.listener);
    } catch {
      // The change log could not be read (the database is away): let the client come back.
      this.end(event('reconnect', { reason: 'The listener could not start: reconnect' }));
      return;
    }
    if (this.closing) {
      this.realtime.unsubscribe(this.listener);
      return;
    }
    this.write(event('welcome', { listenerName: this.listener.id, listenerId: this.listener.id }));
    this.scheduleHeartbeat();
  }

  revoke(error: AppError): void {
    this.end(event('disconnect', { reason: `access ended: ${error.message}`, ...errorBody(error.statusCode, error.message) }));
  }

  shutdown(): void {
    this.end(event('reconnect', { reason: 'The server is restarting: reconnect' }));
  }

  private deliver(text: string): void {
    this.write(text);
    const limit = this.realtime.settings.maxBufferedBytes;
    if (!this.closing && this.response.writableLength > limit) {
      this.end(event('disconnect', { reason: `slow consumer: more than ${limit} bytes unsent` }));
    }
  }

  private write(text: string): void {
    if (!this.closing) this.response.write(text);
  }

  /** Sends a last event, stops sending and ends the stream; a client that does not let go is cut off. */
  private end(last: string): void {
    if (this.closing) return;
    this.write(last);
    this.closing = true;
    clearTimeout(this.heartbeat);
    this.realtime.unsubscribe(this.listener);
    this.response.end();
    setTimeout(() => this.response.destroy(), CLOSE_GRACE_MS).unref();
  }

  private scheduleHeartbeat(): void {
    this.heartbeat = setTimeout(() => {
      if (this.closing) return;
      this.write(':\n\n');
      this.scheduleHeartbeat();
    }, this.realtime.settings.heartbeatMs);
    this.heartbeat.unref();
  }
}

function event(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}
