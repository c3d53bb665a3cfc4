import { EventEmitter } from 'node:events';
import { PostgresBroadcast } from './postgres/postgres-broadcast.ts';

/**
 * Short-lived messages to every instance of the service on one database (presence, which is
 * state nobody needs to keep). Not durable: a message sent while an instance's connection is down
 * never reaches it, and a message is dropped when there is no connection to send it on.
 */
export interface InstanceBroadcast {
  /** The largest message `publish` carries, in bytes of UTF-8. */
  readonly maxMessageBytes: number;
  /** Sends `message` to the subscribers of every instance, this one included, without waiting. */
  publish(message: string): void;
  /** Calls `receive` with every message until the returned function is called. */
  subscribe(receive: (message: string) => void): () => void;
  /** Resolves once messages flow (PostgreSQL: the LISTEN is in place). */
  start(): Promise<void>;
  close(): Promise<void>;
}

export interface InstanceBroadcastOptions {
  /** PostgreSQL only: the schema the store works in (the channel is per schema). */
  schema?: string;
  /** Told when the connection fails; it reconnects by itself. */
  onError?: (error: unknown) => void;
}

// SQLite serves one instance: its broadcast reaches the instances in this process that opened the
// same file (tests run two apps on one file), never another process.
const processChannels = new EventEmitter();
processChannels.setMaxListeners(0);

class ProcessBroadcast implements InstanceBroadcast {
  // As PostgreSQL's NOTIFY, so that what works on one engine works on the other.
  readonly maxMessageBytes = 7_900;
  private readonly file: string;
  private readonly receivers = new Set<(message: string) => void>();

  constructor(file: string) {
    this.file = file;
  }

  publish(message: string): void {
    if (processChannels.listenerCount(this.file) > 0) queueMicrotask(() => processChannels.emit(this.file, message));
  }

  subscribe(receive: (message: string) => void): () => void {
    processChannels.on(this.file, receive);
    this.receivers.add(receive);
    return () => {
      processChannels.off(this.file, receive);
      this.receivers.delete(receive);
    };
  }

  async start(): Promise<void> {}

  async close(): Promise<void> {
    for (const receive of this.receivers) processChannels.off(this.file, receive);
    this.receivers.clear();
  }
}

/** The broadcast for the database DATABASE_URL names: this process (SQLite) or LISTEN/NOTIFY (PostgreSQL). */
export function openInstanceBroadcast(databaseUrl: string, options: InstanceBroadcastOptions = {}): InstanceBroadcast {
  if (databaseUrl.startsWith('sqlite:')) return new ProcessBroadcast(databaseUrl.slice('sqlite:'.length));
  return new PostgresBroadcast(databaseUrl, options);
}
