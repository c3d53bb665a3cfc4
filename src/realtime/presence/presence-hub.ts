import type { PresenceLocation } from './presence-params.ts';
import { subscriptionResultJson, type PresenceEvent } from './presence-events.ts';

/** One session's latest state, as this instance knows it (from its own connections or another instance's). */
interface SessionState {
  readonly userId: string;
  readonly connectionId: string;
  readonly locations: readonly PresenceLocation[];
  /** When the last announcement arrived (ms): states not announced again within the TTL expire. */
  readonly seenAt: number;
}

/** A connection of this instance subscribed to a dataset's presence. */
export interface PresenceSubscriber {
  readonly connectionId: string;
  /** Sends one subscription result (JSON); must not throw. */
  deliver(resultJson: string): void;
}

interface Channel {
  readonly states: Map<string, SessionState>;
  readonly subscribers: Set<PresenceSubscriber>;
}

/** Why a local event was not applied: the caller answers the client with it. */
export type Refusal = 'session-taken' | 'full';

/**
 * Presence of every project and dataset in this process: the states of all sessions (of every
 * instance: each instance hears every announcement) and this instance's subscribers. Events from
 * local connections are checked (a session id another user holds is refused, as is a new session
 * beyond `maxStates`); events from other instances were checked there and are applied as they
 * come. Each event goes to the channel's subscribers except the connection it came from.
 */
export class PresenceHub {
  private readonly channels = new Map<string, Channel>();
  private readonly limits: { readonly maxStates: number };
  private readonly now: () => number;
  private count = 0;

  constructor(limits: { readonly maxStates: number }, now: () => number = Date.now) {
    this.limits = limits;
    this.now = now;
  }

  /** Sessions held, in every channel. */
  get stateCount(): number {
    return this.count;
  }

  /**
   * Adds a subscriber; resolves to the states it should get now (as subscription results), all
   * but its own connection's, so a new editor sees the others before they announce again.
   */
  subscribe(projectId: string, dataset: string, subscriber: PresenceSubscriber): { current: string[]; unsubscribe: () => void } {
    const key = channelKey(projectId, dataset);
    const channel = this.channel(key);
    channel.subscribers.add(subscriber);
    const current = [...channel.states]
      .filter(([, state]) => state.connectionId !== subscriber.connectionId)
      .map(([sessionId, state]) =>
        subscriptionResultJson({ type: 'state', projectId, dataset, sessionId, userId: state.userId, connectionId: state.connectionId, locations: state.locations }),
      );
    return {
      current,
      unsubscribe: () => {
        channel.subscribers.delete(subscriber);
        this.dropIfEmpty(key, channel);
      },
    };
  }

  /**
   * Applies an event and passes it on; resolves to a refusal for a local event that is not
   * allowed, or to whether anything changed (false: a disconnect of a session that another
   * connection holds now, or that is gone).
   */
  apply(event: PresenceEvent, origin: 'local' | 'remote'): Refusal | boolean {
    const key = channelKey(event.projectId, event.dataset);
    const channel = this.channels.get(key);
    switch (event.type) {
      case 'state': {
        const target = channel ?? this.channel(key);
        const existing = target.states.get(event.sessionId);
        if (origin === 'local' && existing && existing.userId !== event.userId) return 'session-taken';
        if (!existing && this.count >= this.limits.maxStates) {
          this.dropIfEmpty(key, target);
          return 'full';
        }
        if (!existing) this.count++;
        target.states.set(event.sessionId, { userId: event.userId, connectionId: event.connectionId, locations: event.locations, seenAt: this.now() });
        this.deliver(target, event);
        return true;
      }
      case 'rollCall':
        if (channel) this.deliver(channel, event);
        return true;
      case 'disconnect': {
        const existing = channel?.states.get(event.sessionId);
        if (!channel || !existing || existing.connectionId !== event.connectionId) return false;
        this.remove(key, channel, event.sessionId);
        this.deliver(channel, { ...event, userId: existing.userId });
        return true;
      }
    }
  }

  /** Removes the states not announced since `before` (ms) and tells the subscribers; resolves to how many. */
  expire(before: number): number {
    let expired = 0;
    for (const [key, channel] of this.channels) {
      const [projectId, dataset] = key.split('\u0000') as [string, string];
      for (const [sessionId, state] of channel.states) {
        if (state.seenAt >= before) continue;
        this.remove(key, channel, sessionId);
        this.deliver(channel, { type: 'disconnect', projectId, dataset, sessionId, userId: state.userId, connectionId: state.connectionId });
        expired++;
      }
    }
    return expired;
  }

  private deliver(channel: Channel, event: PresenceEvent): void {
    if (channel.subscribers.size === 0) return;
    const resultJson = subscriptionResultJson(event);
    for (const subscriber of channel.subscribers) {
      if (subscriber.connectionId !== event.connectionId) subscriber.deliver(resultJson);
    }
  }

  private channel(key: string): Channel {
    let channel = this.channels.get(key);
    if (!channel) {
      channel = { states: new Map(), subscribers: new Set() };
      this.channels.set(key, channel);
    }
    return channel;
  }

  private remove(key: string, channel: Channel, sessionId: string): void {
    if (channel.states.delete(sessionId)) this.count--;
    this.dropIfEmpty(key, channel);
  }

  private dropIfEmpty(key: string, channel: Channel): void {
    if (channel.states.size === 0 && channel.subscribers.size === 0) this.channels.delete(key);
  }
}

const channelKey = (projectId: string, dataset: string) => `${projectId}\u0000${dataset}`;
