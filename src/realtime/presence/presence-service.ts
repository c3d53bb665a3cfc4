import { randomUUID } from 'node:crypto';
import type { Logger } from '../../logging.ts';
import type { AuthService } from '../../identity/auth-service.ts';
import type { ProjectService } from '../../projects/project-service.ts';
import type { ProjectRecord } from '../../store/index.ts';
import type { InstanceBroadcast } from '../../store/instance-broadcast.ts';
import type { Principal } from '../../access/principal.ts';
import { requireProjectRole } from '../../access/access-control.ts';
import { actorIdOf } from '../../content/actor.ts';
import { resolveDataProject } from '../../projects/data-project-resolver.ts';
import type { AccessCheck } from '../realtime-service.ts';
import { RPC_ERRORS, RpcError } from './json-rpc.ts';
import { PresenceBus } from './presence-bus.ts';
import type { PresenceEvent } from './presence-events.ts';
import { PresenceHub, type PresenceSubscriber } from './presence-hub.ts';
import type { PresenceLocation } from './presence-params.ts';

export interface PresenceSettings {
  /** A `♥` text frame and a ping this often; a peer that did not answer the previous ping is dropped. */
  heartbeatMs: number;
  /** A connection that has not authorized itself within this long is closed (4001). */
  authorizationTimeoutMs: number;
  /** A session not announced again within this long is gone (Studio announces every 30 s). */
  stateTtlMs: number;
  /** How often expired states are looked for. */
  sweepIntervalMs: number;
  /** A larger frame closes the connection (1009). */
  maxMessageBytes: number;
  /** Messages a connection may send: this many a second on average, `messageBurst` at once. */
  messagesPerSecond: number;
  messageBurst: number;
  maxSubscriptionsPerConnection: number;
  /** Distinct session ids one connection may announce (Studio uses one per tab). */
  maxSessionsPerConnection: number;
  maxLocations: number;
  /** One session's state as JSON; it must fit in one broadcast message. */
  maxStateBytes: number;
  /** A client with more than this unsent is disconnected (1008). */
  maxBufferedBytes: number;
  /** Presence connections of this instance; more are closed with 1013 (try again later). */
  maxConnections: number;
  /** Sessions this instance holds (of every instance: each holds all); new ones beyond are refused. */
  maxStates: number;
}

export const DEFAULT_PRESENCE_SETTINGS: Readonly<PresenceSettings> = {
  heartbeatMs: 25_000,
  authorizationTimeoutMs: 10_000,
  // Three of Studio's 30 s announcements; a background tab's timers may run only once a minute.
  stateTtlMs: 90_000,
  sweepIntervalMs: 5_000,
  maxMessageBytes: 16 * 1024,
  // Studio announces at most every 200 ms while the editor moves (auditTime), plus requests of its own.
  messagesPerSecond: 10,
  messageBurst: 20,
  maxSubscriptionsPerConnection: 4,
  maxSessionsPerConnection: 4,
  maxLocations: 32,
  maxStateBytes: 6 * 1024,
  maxBufferedBytes: 1024 * 1024,
  maxConnections: 10_000,
  maxStates: 10_000,
};

/** A connection's place in presence once it is authorized. */
export interface PresenceMember {
  readonly connectionId: string;
  readonly projectId: string;
  readonly dataset: string;
  /** The user id, or `token:<id>`. */
  readonly userId: string;
}

export interface PresenceAccess {
  readonly principal: Principal;
  readonly project: ProjectRecord;
  readonly userId: string;
  readonly access: AccessCheck;
}

export interface PresenceServiceOptions {
  auth: AuthService;
  projects: ProjectService;
  broadcast: InstanceBroadcast;
  log: Logger;
  settings?: Partial<PresenceSettings>;
  now?: () => number;
}

/**
 * Presence (who else has a document open) for Sanity Studio: the sessions of every instance in
 * one hub per process, kept in step through the database's broadcast. Connections
 * (presence-connection.ts) authorize, announce, call the roll and disconnect through it.
 * `settings` may be changed at run time (tests do).
 */
export class PresenceService {
  readonly settings: PresenceSettings;
  private readonly options: PresenceServiceOptions;
  private readonly hub: PresenceHub;
  private readonly bus: PresenceBus;
  private readonly log: Logger;
  private readonly now: () => number;
  private open = 0;
  private serial = 0;
  private starting: Promise<void> | undefined;
  private unsubscribeBus: (() => void) | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private lastFullWarning = 0;

  constructor(options: PresenceServiceOptions) {
    this.options = options;
    this.settings = { ...DEFAULT_PRESENCE_SETTINGS, ...options.settings };
    this.log = options.log;
    this.now = options.now ?? Date.now;
    this.hub = new PresenceHub(this.settings, this.now);
    this.bus = new PresenceBus(options.broadcast, randomUUID(), options.log);
  }

  /** Joins the other instances; idempotent, done by the first authorized connection. */
  start(): Promise<void> {
    this.starting ??= (async () => {
      this.unsubscribeBus = this.bus.subscribe((event) => this.receive(event));
      // Without the broadcast, presence still works among this instance's editors; it reconnects by itself.
      await this.bus.start().catch((error: unknown) => this.log.warn({ err: error }, 'presence broadcast unavailable; presence stays on this instance meanwhile'));
      this.scheduleSweep();
    })();
    return this.starting;
  }

  async stop(): Promise<void> {
    await this.starting;
    clearTimeout(this.sweepTimer);
    this.sweepTimer = undefined;
    this.unsubscribeBus?.();
    await this.bus.close();
    this.starting = undefined;
  }

  /** Counts a new connection and names it; undefined when the instance has as many as it may. */
  connectionOpened(): { connectionId: string; release: () => void } | undefined {
    if (this.open >= this.settings.maxConnections) return undefined;
    this.open++;
    let released = false;
    return {
      connectionId: `${this.bus.instanceId}:${++this.serial}`,
      release: () => {
        if (!released) this.open--;
        released = true;
      },
    };
  }

  /** Who the credential is and whether it may see the dataset's presence (what reading it needs); rejects with an AppError. */
  async authorize(credential: string, dataset: string, namedProject: string | undefined): Promise<PresenceAccess> {
    const principal = await this.options.auth.authenticate(credential);
    const project = await resolveDataProject(this.options.projects, principal, dataset, namedProject);
    requireProjectRole(principal, project, 'viewer', { dataset });
    await this.start();
    return { principal, project, userId: actorIdOf(principal), access: this.accessCheck(credential, project.id, dataset) };
  }

  subscribe(member: PresenceMember, subscriber: PresenceSubscriber): { current: string[]; unsubscribe: () => void } {
    return this.hub.subscribe(member.projectId, member.dataset, subscriber);
  }

  announce(member: PresenceMember, sessionId: string, locations: readonly PresenceLocation[]): void {
    const event: PresenceEvent = { type: 'state', ...member, sessionId, locations };
    const outcome = this.hub.apply(event, 'local');
    if (outcome === 'session-taken') throw new RpcError(RPC_ERRORS.INVALID_PARAMS, `Invalid params: the session id "${sessionId}" belongs to another user`);
    if (outcome === 'full') throw new RpcError(RPC_ERRORS.CAPACITY, 'This server holds as many presence sessions as it may: try again later');
    this.bus.publish(event);
  }

  rollCall(member: PresenceMember, sessionId: string): void {
    const event: PresenceEvent = { type: 'rollCall', ...member, sessionId };
    this.hub.apply(event, 'local');
    this.bus.publish(event);
  }

  /** Ends a session of the connection; other instances drop it only if that connection still holds it. */
  disconnect(member: PresenceMember, sessionId: string): void {
    const event: PresenceEvent = { type: 'disconnect', ...member, sessionId };
    this.hub.apply(event, 'local');
    this.bus.publish(event);
  }

  /** Removes the sessions not announced within the TTL now (it also happens every `sweepIntervalMs`). */
  sweep(): number {
    return this.hub.expire(this.now() - this.settings.stateTtlMs);
  }

  /** Sessions this instance holds. */
  get sessions(): number {
    return this.hub.stateCount;
  }

  private receive(event: PresenceEvent): void {
    if (this.hub.apply(event, 'remote') !== 'full') return;
    if (this.now() - this.lastFullWarning < 60_000) return;
    this.lastFullWarning = this.now();
    this.log.warn({ maxStates: this.settings.maxStates }, 'presence is full on this instance: sessions of other instances are left out');
  }

  /** The same check as listeners' (listen.ts), so a credential used by both is checked once a round. */
  private accessCheck(credential: string, projectId: string, dataset: string): AccessCheck {
    return {
      key: `${credential}\u0000${projectId}\u0000${dataset}`,
      verify: async () => {
        const principal = await this.options.auth.authenticate(credential);
        const project = await resolveDataProject(this.options.projects, principal, dataset, projectId);
        requireProjectRole(principal, project, 'viewer', { dataset });
      },
    };
  }

  private scheduleSweep(): void {
    clearTimeout(this.sweepTimer);
    this.sweepTimer = setTimeout(() => {
      this.sweep();
      this.scheduleSweep();
    }, this.settings.sweepIntervalMs);
    this.sweepTimer.unref();
  }
}
