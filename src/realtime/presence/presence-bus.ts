import type { Logger } from '../../logging.ts';
import type { InstanceBroadcast } from '../../store/instance-broadcast.ts';
import type { PresenceEvent } from './presence-events.ts';

const VERSION = 1;
/**
 * Events published within this long leave together, in as few messages as fit: at most 20
 * messages a second per instance, however many editors type. On PostgreSQL every NOTIFY commits
 * under one lock for the whole cluster, which writers' change signals take too; presence must not
 * crowd them out. 50 ms is nothing beside Studio's own 200 ms between announcements.
 */
const BATCH_MS = 50;

interface Envelope {
  v: number;
  /** The instance that sent it: an instance ignores its own messages. */
  from: string;
  events: PresenceEvent[];
}

/**
 * Presence events to and from the other instances, over the database's broadcast (NOTIFY on
 * PostgreSQL). Events are batched for BATCH_MS and packed into messages the broadcast can
 * carry. Nothing is retried: a lost event is made good by the next announcement (Studio announces
 * every 30 s) or by the state's expiry.
 */
export class PresenceBus {
  readonly instanceId: string;
  private readonly broadcast: InstanceBroadcast;
  private readonly log: Logger;
  private pending: string[] = [];
  private flushTimer: NodeJS.Timeout | undefined;

  constructor(broadcast: InstanceBroadcast, instanceId: string, log: Logger) {
    this.broadcast = broadcast;
    this.instanceId = instanceId;
    this.log = log;
  }

  start(): Promise<void> {
    return this.broadcast.start();
  }

  /** Calls `receive` with every event another instance publishes, until the returned function is called. */
  subscribe(receive: (event: PresenceEvent) => void): () => void {
    return this.broadcast.subscribe((message) => {
      const envelope = parseEnvelope(message);
      if (!envelope) {
        this.log.warn('ignored a presence message of an unknown shape');
        return;
      }
      if (envelope.from === this.instanceId) return;
      for (const event of envelope.events) receive(event);
    });
  }

  publish(event: PresenceEvent): void {
    this.pending.push(JSON.stringify(event));
    if (!this.flushTimer) {
      this.flushTimer = setTimeout(() => this.flush(), BATCH_MS);
      this.flushTimer.unref();
    }
  }

  /** Sends what is pending now. */
  flush(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const events = this.pending;
    this.pending = [];
    const head = `{"v":${VERSION},"from":${JSON.stringify(this.instanceId)},"events":[`;
    const limit = this.broadcast.maxMessageBytes - Buffer.byteLength(head) - 2;
    let batch: string[] = [];
    let bytes = 0;
    const send = () => {
      if (batch.length > 0) this.broadcast.publish(`${head}${batch.join(',')}]}`);
      batch = [];
      bytes = 0;
    };
    for (const event of events) {
      const size = Buffer.byteLength(event) + 1;
      if (size > limit) {
        // States are limited far below this (maxStateBytes); only a bug gets here.
        this.log.error({ bytes: size }, 'a presence event is too large for the broadcast; not sent to other instances');
        continue;
      }
      if (bytes + size > limit) send();
      batch.push(event);
      bytes += size;
    }
    send();
  }

  async close(): Promise<void> {
    this.flush();
    await this.broadcast.close();
  }
}

const EVENT_TYPES = new Set(['state', 'rollCall', 'disconnect']);

/** Messages come from other instances of this service, so the check is of shape, not of content. */
function parseEnvelope(message: string): Envelope | undefined {
  let value: unknown;
  try {
    value = JSON.parse(message);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { v, from, events } = value as Partial<Envelope>;
  if (v !== VERSION || typeof from !== 'string' || !Array.isArray(events)) return undefined;
  const valid = events.every(
    (event: Partial<PresenceEvent> | null) =>
      typeof event === 'object' &&
      event !== null &&
      EVENT_TYPES.has(event.type ?? '') &&
      [event.projectId, event.dataset, event.userId, event.sessionId, event.connectionId].every((field) => typeof field === 'string') &&
      (event.type !== 'state' || Array.isArray((event as { locations?: unknown }).locations)),
  );
  return valid ? { v, from, events } : undefined;
}
