import type { Logger } from '../logging.ts';
import type { ProjectRecord, Store } from '../store/index.ts';
import type { ChangeSignal } from '../store/change-signal.ts';
import type { Principal } from '../access/principal.ts';
import { requireProjectRole } from '../access/access-control.ts';
import { AppError } from '../errors.ts';
import { ChangeFeed } from './change-feed.ts';
import { DocumentStates } from './document-states.ts';
import { compileListenFilter, type FilterLimits, type ListenFilter } from './listen-filter.ts';
import { largestQueryText } from '../content/query/query-budget.ts';
import { ListenerRegistry, type Listener } from './listener-registry.ts';
import { ListenerSlots } from './listener-slots.ts';

export interface RealtimeSettings {
  /** WebSocket pings and SSE comments this often keep idle connections open through proxies. */
  heartbeatMs: number;
  /** A client that lets more than this much pile up unsent is disconnected. */
  maxBufferedBytes: number;
  /** How often open listeners' credentials and access are checked again. */
  recheckMs: number;
  /** How often the change log is read when no signal came. */
  pollIntervalMs: number;
  /** Listen connections one caller (user, token or address) may hold open at once on this instance. */
  listenersPerCaller: number;
  /** What a listener's filter may cost on one document before its listeners are closed. */
  filterLimits: FilterLimits;
}

export const DEFAULT_REALTIME_SETTINGS: Readonly<RealtimeSettings> = {
  // Under the 30 to 60 s idle timeouts of common proxies and load balancers.
  heartbeatMs: 25_000,
  maxBufferedBytes: 4 * 1024 * 1024,
  recheckMs: 60_000,
  pollIntervalMs: 1_000,
  listenersPerCaller: 200,
  filterLimits: { sliceMs: 100, maxTextChars: largestQueryText(256) },
};

/** How a connection's access is checked again while it is open. */
export interface AccessCheck {
  /** Connections with equal keys (same credential, project and dataset) are checked once per round. */
  readonly key: string;
  /** Rejects with an AppError (401, 403, 404) when the credential or the access is gone. */
  verify(): Promise<void>;
}

/** An open listen connection (WebSocket or SSE), as the service sees it. */
export interface ListenSession {
  readonly access: AccessCheck;
  /** The credential or access is gone: tell the client why and disconnect. */
  revoke(error: AppError): void;
  /** The server is stopping: tell the client to reconnect, and disconnect. */
  shutdown(): void;
}

/**
 * Real-time listeners: the registry of this instance's subscriptions, the change feed that
 * serves them, and the connections it keeps track of (counted for GET /health, checked again
 * every `recheckMs`, told to reconnect when the server stops). `settings` may be changed at run
 * time; connections read it as they go.
 */
export class RealtimeService {
  readonly settings: RealtimeSettings;
  readonly registry = new ListenerRegistry();
  private readonly store: Store;
  private readonly signal: ChangeSignal;
  private readonly log: Logger;
  private readonly feed: ChangeFeed;
  private readonly sessions = new Set<ListenSession>();
  private readonly slots = new ListenerSlots(() => this.settings.listenersPerCaller);
  private webSockets = 0;
  private starting: Promise<void> | undefined;
  private unsubscribeSignal: (() => void) | undefined;
  private recheckTimer: NodeJS.Timeout | undefined;

  constructor(store: Store, signal: ChangeSignal, log: Logger, settings: Partial<RealtimeSettings> = {}) {
    this.store = store;
    this.signal = signal;
    this.log = log;
    this.settings = { ...DEFAULT_REALTIME_SETTINGS, ...settings };
    this.feed = new ChangeFeed(store, this.registry, new DocumentStates(store), log, this.settings);
  }

  /** Starts reading the change log; idempotent, and done by the first subscription if not before. */
  start(): Promise<void> {
    this.starting ??= (async () => {
      this.unsubscribeSignal = this.signal.subscribe(() => void this.feed.wake());
      // Without the signal, changes still arrive by polling; it reconnects by itself.
      await this.signal.start().catch((error: unknown) => this.log.warn({ err: error }, 'change signal unavailable; polling meanwhile'));
      await this.feed.start();
      this.scheduleRecheck();
    })().catch((error: unknown) => {
      this.starting = undefined;
      this.unsubscribeSignal?.();
      throw error;
    });
    return this.starting;
  }

  async stop(): Promise<void> {
    // A start under way finishes first, so nothing it sets up outlives the stop.
    await this.starting?.catch(() => undefined);
    clearTimeout(this.recheckTimer);
    this.recheckTimer = undefined;
    this.unsubscribeSignal?.();
    await this.feed.stop();
    await this.signal.close();
    this.starting = undefined;
  }

  /** Throws 403 unless the principal may query the dataset (listening needs what queries need). */
  authorize(principal: Principal, project: ProjectRecord, dataset: string): void {
    requireProjectRole(principal, project, 'viewer', { dataset });
  }

  compileFilter(query: string, params: Record<string, unknown>, project: ProjectRecord, dataset: string): Promise<ListenFilter> {
    return compileListenFilter(query, params, { projectId: project.id, dataset }, this.settings.filterLimits);
  }

  /**
   * Registers a listener once the feed runs, so it gets every change committed from now on and
   * none committed before (which the feed may not have read yet).
   */
  async subscribe(listener: Listener): Promise<void> {
    await this.start();
    this.registry.add(listener, await this.store.changes.horizon());
  }

  unsubscribe(listener: Listener): void {
    this.registry.delete(listener);
  }

  /**
   * Takes one of `caller`'s listener slots (429 when it holds them all); the connection gives it
   * back through the returned function when it closes.
   */
  reserveListener(caller: string): () => void {
    return this.slots.take(caller);
  }

  /** Tracks an open connection until the returned function is called. */
  attach(session: ListenSession): () => void {
    this.sessions.add(session);
    return () => this.sessions.delete(session);
  }

  /** Counts an open WebSocket until the returned function is called (once). */
  webSocketOpened(): () => void {
    this.webSockets++;
    let open = true;
    return () => {
      if (open) this.webSockets--;
      open = false;
    };
  }

  /** Open WebSocket connections on this instance (GET /health). */
  get connections(): number {
    return this.webSockets;
  }

  /** Tells every open connection to reconnect (elsewhere) and closes it: the server is stopping. */
  shutdown(): void {
    for (const session of [...this.sessions]) session.shutdown();
  }

  /** Checks every open connection's access again; one check per distinct credential and dataset. */
  async recheck(): Promise<void> {
    const checks = new Map<string, Promise<void>>();
    await Promise.all(
      [...this.sessions].map(async (session) => {
        let check = checks.get(session.access.key);
        if (!check) {
          check = session.access.verify();
          checks.set(session.access.key, check);
        }
        try {
          await check;
        } catch (error) {
          // An outage is not a revocation: only a refusal disconnects.
          if (error instanceof AppError) session.revoke(error);
          else this.log.warn({ err: error }, 'could not check a listener\'s access; keeping it open');
        }
      }),
    );
  }

  private scheduleRecheck(): void {
    clearTimeout(this.recheckTimer);
    this.recheckTimer = setTimeout(() => {
      void this.recheck().finally(() => {
        if (this.recheckTimer) this.scheduleRecheck();
      });
    }, this.settings.recheckMs);
    this.recheckTimer.unref();
  }
}
